package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The image the chart and the kustomize overlays deploy by default is the one the build derives
 * from this source tree: {@code tenbin.image.tag}, {@code <version>-<source commit>}, where the
 * source commit is the last commit that changed anything outside k8s/ (the root pom's
 * "source-commit" execution). A commit that changes the sources makes this test fail until the tags
 * are updated, which is a commit inside k8s/ and so keeps the tag it names:
 *
 * <pre>
 * ./mvnw -B -q -o -pl k8s/tests -am test -Dtest=ImageTagTest -Dtenbin.updateImageTag=true
 * </pre>
 *
 * rewrites Chart.yaml's appVersion, the overlays' newTag and the kustomize base.
 */
class ImageTagTest {
  static final String FIX =
      "./mvnw -B -q -o -pl k8s/tests -am test -Dtest=ImageTagTest -Dtenbin.updateImageTag=true";

  static final Pattern APP_VERSION = Pattern.compile("(?m)^appVersion: \"([^\"]*)\"$");
  static final Pattern NEW_TAG =
      Pattern.compile(
          "(?m)^(  - name: (tenbin(?:-gpu)?)\\n    newName: \\S+\\n    newTag: )(\\S+)$");

  /** The tag of the image built from the last source commit (a dirty tree's suffix dropped). */
  static String derivedTag() {
    String tag = System.getProperty("tenbin.image.tag", "");
    Assumptions.assumeTrue(
        tag.matches("\\d+\\.\\d+\\.\\d+-[0-9a-f]{7,}(-dirty)?"),
        "built without git: no source commit to compare with (tenbin.image.tag=" + tag + ")");
    return tag.replaceFirst("-dirty$", "");
  }

  /** Each newTag of an overlay, by image name: tenbin and tenbin-gpu. */
  static List<String[]> newTags(String kustomization) {
    List<String[]> tags = new ArrayList<>();
    Matcher m = NEW_TAG.matcher(kustomization);
    while (m.find()) {
      tags.add(new String[] {m.group(2), m.group(3)});
    }
    return tags;
  }

  static String expectedNewTag(String image, String tag) {
    return image.equals("tenbin-gpu") ? tag + "-gpu" : tag;
  }

  static List<Path> overlays() {
    return List.of(
        Charts.K8S.resolve("kustomize/overlays/cpu/kustomization.yaml"),
        Charts.K8S.resolve("kustomize/overlays/gpu/kustomization.yaml"));
  }

  @Test
  void chartAppVersionAndOverlayTagsNameTheImageOfThisSourceTree() throws IOException {
    String tag = derivedTag();
    if (Boolean.getBoolean("tenbin.updateImageTag")) {
      update(tag);
    }
    Matcher appVersion = APP_VERSION.matcher(Files.readString(Charts.CHART.resolve("Chart.yaml")));
    assertThat(appVersion.find()).as("Chart.yaml has an appVersion line").isTrue();
    assertThat(appVersion.group(1))
        .as("Chart.yaml appVersion against the image of this source tree; fix: " + FIX)
        .isEqualTo(tag);
    for (Path overlay : overlays()) {
      List<String[]> tags = newTags(Files.readString(overlay));
      assertThat(tags).as(overlay + " sets image tags").isNotEmpty();
      for (String[] imageAndTag : tags) {
        assertThat(imageAndTag[1])
            .as(overlay + " newTag of " + imageAndTag[0] + "; fix: " + FIX)
            .isEqualTo(expectedNewTag(imageAndTag[0], tag));
      }
    }
  }

  @Test
  void theOverlayTagPatternFindsEveryNewTag() throws IOException {
    for (Path overlay : overlays()) {
      String text = Files.readString(overlay);
      assertThat(newTags(text))
          .as("every newTag line of " + overlay + " is one the check reads")
          .hasSize((int) text.lines().filter(l -> l.strip().startsWith("newTag:")).count());
    }
    assertThat(newTags(Files.readString(overlays().get(1))))
        .extracting(t -> t[0])
        .containsExactly("tenbin", "tenbin-gpu");
  }

  /** Rewrites the appVersion, every overlay's newTag and the kustomize base for {@code tag}. */
  static void update(String tag) throws IOException {
    Path chart = Charts.CHART.resolve("Chart.yaml");
    Files.writeString(
        chart,
        APP_VERSION
            .matcher(Files.readString(chart))
            .replaceFirst(Matcher.quoteReplacement("appVersion: \"" + tag + "\"")));
    for (Path overlay : overlays()) {
      Matcher m = NEW_TAG.matcher(Files.readString(overlay));
      Files.writeString(
          overlay,
          m.replaceAll(
              r -> Matcher.quoteReplacement(r.group(1) + expectedNewTag(r.group(2), tag))));
    }
    ChartRenderingTest.writeKustomizeBase();
  }
}
