package dev.tenbin.testing.browser;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's Chromium driven through WebDriver by its {@code chromedriver}, for the tests that click,
 * type and upload as a person does: headless, in a window of a fixed size, with its profile and
 * downloads in the test's folder. Both binaries are named explicitly, so Selenium never looks for
 * (or downloads) a driver or a browser of its own. Needs the Debian packages {@code chromium} and
 * {@code chromium-driver} ({@code .ci/install-chromium} installs both); {@code
 * TENBIN_SKIP_BROWSER_TESTS=1} skips the tests that use it, as for {@link HeadlessChromium}.
 */
public final class DrivenChromium implements AutoCloseable {
  /** Where the Debian package {@code chromium-driver} installs the driver. */
  public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  /** How long a wait for the page ({@link #waitUntil}) may take before the test fails. */
  public static final Duration WAIT = Duration.ofSeconds(30);

  private final ChromeDriver driver;
  private final Path downloads;

  private DrivenChromium(ChromeDriver driver, Path downloads) {
    this.driver = driver;
    this.downloads = downloads;
  }

  /**
   * A browser whose window is {@code width} × {@code height} px and whose profile and downloads go
   * under {@code dir}: skips the calling test when {@link HeadlessChromium#SKIP_VARIABLE} is 1, and
   * fails it, saying what to install, when the browser or its driver is missing.
   */
  public static DrivenChromium in(Path dir, int width, int height) throws IOException {
    Assumptions.assumeFalse(
        "1".equals(System.getenv(HeadlessChromium.SKIP_VARIABLE)),
        HeadlessChromium.SKIP_VARIABLE + "=1");
    for (var needed :
        List.of(
            Map.entry(HeadlessChromium.CHROMIUM, "chromium"),
            Map.entry(CHROMEDRIVER, "chromium-driver"))) {
      if (!Files.isExecutable(needed.getKey())) {
        throw new AssertionError(
            needed.getKey()
                + " is needed to drive the browser: install the Debian package '"
                + needed.getValue()
                + "' (apt-get install "
                + needed.getValue()
                + "), or set "
                + HeadlessChromium.SKIP_VARIABLE
                + "=1 to skip the browser tests");
      }
    }
    Path downloads = Files.createDirectories(dir.resolve("downloads"));
    Path profile = Files.createTempDirectory(dir, "profile");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(HeadlessChromium.CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height);
    options.setExperimentalOption(
        "prefs",
        Map.of(
            "download.default_directory", downloads.toString(),
            "download.prompt_for_download", false,
            "safebrowsing.enabled", false));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withLogFile(dir.resolve("chromedriver.log").toFile())
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    return new DrivenChromium(driver, downloads);
  }

  /** The driver, for what this class does not wrap. */
  public WebDriver driver() {
    return driver;
  }

  /** The folder downloads land in ({@code download.default_directory}). */
  public Path downloads() {
    return downloads;
  }

  /** Opens {@code url} and waits for it to load. */
  public void open(String url) {
    driver.get(url);
  }

  /** The element {@code selector} finds on the current page. */
  public WebElement find(By selector) {
    return driver.findElement(selector);
  }

  /** Waits, at most {@link #WAIT}, until {@code condition} holds on the page. */
  public <T> T waitUntil(Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, WAIT).until(condition::apply);
  }

  /** Runs {@code script} in the current page and answers its value. */
  public Object script(String script, Object... arguments) {
    return ((JavascriptExecutor) driver).executeScript(script, arguments);
  }

  /**
   * The problems {@code layout-check.js} finds on the current page, joined by " | " ("" when none):
   * the same check as {@link HeadlessChromium#layoutProblems}, run in the page as it is now (after
   * its scripts, filled forms and polling) at the window's width.
   */
  public String layoutProblems() {
    script(layoutCheck());
    Object problems = script("return document.body.getAttribute('data-layout-problems');");
    Object ok = script("return document.body.getAttribute('data-layout');");
    if (problems == null && !"ok".equals(ok)) {
      throw new AssertionError("the layout check did not run on " + driver.getCurrentUrl());
    }
    return problems == null ? "" : problems.toString();
  }

  /** The width of the page's viewport, in CSS pixels. */
  public long viewportWidth() {
    return ((Number) script("return window.innerWidth;")).longValue();
  }

  /**
   * The element that has the keyboard focus after {@code presses} presses of Tab from wherever the
   * focus is now, as a person would step through the page.
   */
  public WebElement tab(int presses) {
    Actions actions = new Actions(driver);
    for (int i = 0; i < presses; i++) {
      actions.sendKeys(Keys.TAB);
    }
    actions.perform();
    return driver.switchTo().activeElement();
  }

  @Override
  public void close() {
    driver.quit();
  }

  private static String layoutCheck() {
    try (InputStream in = DrivenChromium.class.getResourceAsStream("layout-check.js")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read layout-check.js", e);
    }
  }
}
