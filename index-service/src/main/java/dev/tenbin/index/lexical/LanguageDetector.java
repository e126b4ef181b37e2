package dev.tenbin.index.lexical;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.ca.CatalanAnalyzer;
import org.apache.lucene.analysis.cz.CzechAnalyzer;
import org.apache.lucene.analysis.da.DanishAnalyzer;
import org.apache.lucene.analysis.de.GermanAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.es.SpanishAnalyzer;
import org.apache.lucene.analysis.fi.FinnishAnalyzer;
import org.apache.lucene.analysis.fr.FrenchAnalyzer;
import org.apache.lucene.analysis.hu.HungarianAnalyzer;
import org.apache.lucene.analysis.id.IndonesianAnalyzer;
import org.apache.lucene.analysis.it.ItalianAnalyzer;
import org.apache.lucene.analysis.nl.DutchAnalyzer;
import org.apache.lucene.analysis.no.NorwegianAnalyzer;
import org.apache.lucene.analysis.pt.PortugueseAnalyzer;
import org.apache.lucene.analysis.ro.RomanianAnalyzer;
import org.apache.lucene.analysis.sv.SwedishAnalyzer;
import org.apache.lucene.analysis.tr.TurkishAnalyzer;

/**
 * Guesses a collection's language from a sample of its text, so that {@code tenbin eval} picks the
 * right analyzer when no {@code --language} is given. Non-Latin scripts decide by script (Arabic
 * script with Persian letters is Persian; Han with kana is Japanese; Cyrillic with Ukrainian
 * letters is Ukrainian). Latin-script text is attributed to the language whose Lucene stop words
 * cover the largest share of its words.
 */
public final class LanguageDetector {
  private static final Pattern WORD = Pattern.compile("\\p{L}+");
  private static final Map<String, Supplier<CharArraySet>> LATIN_STOP_WORDS = new LinkedHashMap<>();

  static {
    LATIN_STOP_WORDS.put("en", () -> EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
    LATIN_STOP_WORDS.put("de", GermanAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("fr", FrenchAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("es", SpanishAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("it", ItalianAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("pt", PortugueseAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("nl", DutchAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("sv", SwedishAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("da", DanishAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("no", NorwegianAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("fi", FinnishAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("id", IndonesianAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("tr", TurkishAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("ro", RomanianAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("hu", HungarianAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("ca", CatalanAnalyzer::getDefaultStopSet);
    LATIN_STOP_WORDS.put("cs", CzechAnalyzer::getDefaultStopSet);
  }

  private LanguageDetector() {}

  /** The ISO 639-1 code of the most likely language of {@code sample}; "en" when unsure. */
  public static String detect(CharSequence sample) {
    Map<Character.UnicodeScript, Integer> scripts = new EnumMap<>(Character.UnicodeScript.class);
    int kana = 0;
    int persianLetters = 0;
    int ukrainianLetters = 0;
    for (int i = 0; i < sample.length(); ) {
      int cp = Character.codePointAt(sample, i);
      i += Character.charCount(cp);
      if (!Character.isLetter(cp)) {
        continue;
      }
      Character.UnicodeScript script = Character.UnicodeScript.of(cp);
      scripts.merge(script, 1, Integer::sum);
      if (script == Character.UnicodeScript.HIRAGANA
          || script == Character.UnicodeScript.KATAKANA) {
        kana++;
      }
      if (cp == 'پ' || cp == 'چ' || cp == 'ژ' || cp == 'گ' || cp == 'ی') {
        persianLetters++;
      }
      if (cp == 'і' || cp == 'ї' || cp == 'є' || cp == 'ґ') {
        ukrainianLetters++;
      }
    }
    Character.UnicodeScript dominant =
        scripts.entrySet().stream()
            .max(Map.Entry.comparingByValue())
            .map(Map.Entry::getKey)
            .orElse(Character.UnicodeScript.LATIN);
    int letters = scripts.values().stream().mapToInt(Integer::intValue).sum();
    return switch (dominant) {
      case ARABIC -> persianLetters > letters / 100 ? "fa" : "ar";
      case HAN -> kana > letters / 20 ? "ja" : "zh";
      case HIRAGANA, KATAKANA -> "ja";
      case HANGUL -> "ko";
      case THAI -> "th";
      case CYRILLIC -> ukrainianLetters > letters / 200 ? "uk" : "ru";
      case GREEK -> "el";
      case DEVANAGARI -> "hi";
      case BENGALI -> "bn";
      case TAMIL -> "ta";
      case TELUGU -> "te";
      case ARMENIAN -> "hy";
      case HEBREW -> "he";
      case LATIN -> detectLatin(sample);
      default -> "en";
    };
  }

  private static String detectLatin(CharSequence sample) {
    Map<String, Integer> hits = new LinkedHashMap<>();
    Map<String, CharArraySet> sets = new LinkedHashMap<>();
    LATIN_STOP_WORDS.forEach((language, set) -> sets.put(language, set.get()));
    Matcher words = WORD.matcher(sample);
    int total = 0;
    while (words.find()) {
      String word = words.group().toLowerCase(Locale.ROOT);
      total++;
      for (Map.Entry<String, CharArraySet> entry : sets.entrySet()) {
        if (entry.getValue().contains(word)) {
          hits.merge(entry.getKey(), 1, Integer::sum);
        }
      }
    }
    if (total == 0) {
      return "en";
    }
    return hits.entrySet().stream()
        .max(Map.Entry.<String, Integer>comparingByValue())
        .map(Map.Entry::getKey)
        .orElse("en");
  }
}
