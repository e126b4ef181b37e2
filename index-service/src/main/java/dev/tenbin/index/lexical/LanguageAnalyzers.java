package dev.tenbin.index.lexical;

import dev.tenbin.core.InvalidInputException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.ar.ArabicAnalyzer;
import org.apache.lucene.analysis.bg.BulgarianAnalyzer;
import org.apache.lucene.analysis.bn.BengaliAnalyzer;
import org.apache.lucene.analysis.br.BrazilianAnalyzer;
import org.apache.lucene.analysis.ca.CatalanAnalyzer;
import org.apache.lucene.analysis.ckb.SoraniAnalyzer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.cz.CzechAnalyzer;
import org.apache.lucene.analysis.da.DanishAnalyzer;
import org.apache.lucene.analysis.de.GermanAnalyzer;
import org.apache.lucene.analysis.el.GreekAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.es.SpanishAnalyzer;
import org.apache.lucene.analysis.et.EstonianAnalyzer;
import org.apache.lucene.analysis.eu.BasqueAnalyzer;
import org.apache.lucene.analysis.fa.PersianAnalyzer;
import org.apache.lucene.analysis.fi.FinnishAnalyzer;
import org.apache.lucene.analysis.fr.FrenchAnalyzer;
import org.apache.lucene.analysis.ga.IrishAnalyzer;
import org.apache.lucene.analysis.gl.GalicianAnalyzer;
import org.apache.lucene.analysis.hi.HindiAnalyzer;
import org.apache.lucene.analysis.hu.HungarianAnalyzer;
import org.apache.lucene.analysis.hy.ArmenianAnalyzer;
import org.apache.lucene.analysis.icu.ICUNormalizer2Filter;
import org.apache.lucene.analysis.icu.segmentation.ICUTokenizer;
import org.apache.lucene.analysis.id.IndonesianAnalyzer;
import org.apache.lucene.analysis.it.ItalianAnalyzer;
import org.apache.lucene.analysis.ja.JapaneseAnalyzer;
import org.apache.lucene.analysis.ko.KoreanAnalyzer;
import org.apache.lucene.analysis.lt.LithuanianAnalyzer;
import org.apache.lucene.analysis.lv.LatvianAnalyzer;
import org.apache.lucene.analysis.morfologik.MorfologikAnalyzer;
import org.apache.lucene.analysis.ne.NepaliAnalyzer;
import org.apache.lucene.analysis.nl.DutchAnalyzer;
import org.apache.lucene.analysis.no.NorwegianAnalyzer;
import org.apache.lucene.analysis.pt.PortugueseAnalyzer;
import org.apache.lucene.analysis.ro.RomanianAnalyzer;
import org.apache.lucene.analysis.ru.RussianAnalyzer;
import org.apache.lucene.analysis.sr.SerbianAnalyzer;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.sv.SwedishAnalyzer;
import org.apache.lucene.analysis.ta.TamilAnalyzer;
import org.apache.lucene.analysis.te.TeluguAnalyzer;
import org.apache.lucene.analysis.tr.TurkishAnalyzer;
import org.apache.lucene.analysis.uk.UkrainianMorfologikAnalyzer;

/**
 * Chooses the BM25 analyzer for a collection's language, as Anserini's {@code -language} does:
 * Lucene's own analysis for every language it covers, kuromoji (ja), smartcn (zh), nori (ko), ICU
 * segmentation for Thai and Vietnamese, and a Unicode-aware default (ICU word segmentation with
 * NFKC case folding) for any other ISO 639 language.
 */
public final class LanguageAnalyzers {
  /** English exactly as Anserini's default: possessives, lower case, Lucene stop words, Porter. */
  static final String ENGLISH = "en";

  private static final Map<String, Supplier<Analyzer>> LUCENE_ANALYZERS =
      Map.ofEntries(
          Map.entry(ENGLISH, LanguageAnalyzers::anseriniEnglish),
          Map.entry("ar", ArabicAnalyzer::new),
          Map.entry("bg", BulgarianAnalyzer::new),
          Map.entry("bn", BengaliAnalyzer::new),
          Map.entry("ca", CatalanAnalyzer::new),
          Map.entry("ckb", SoraniAnalyzer::new),
          Map.entry("cs", CzechAnalyzer::new),
          Map.entry("da", DanishAnalyzer::new),
          Map.entry("de", GermanAnalyzer::new),
          Map.entry("el", GreekAnalyzer::new),
          Map.entry("es", SpanishAnalyzer::new),
          Map.entry("et", EstonianAnalyzer::new),
          Map.entry("eu", BasqueAnalyzer::new),
          Map.entry("fa", PersianAnalyzer::new),
          Map.entry("fi", FinnishAnalyzer::new),
          Map.entry("fr", FrenchAnalyzer::new),
          Map.entry("ga", IrishAnalyzer::new),
          Map.entry("gl", GalicianAnalyzer::new),
          Map.entry("hi", HindiAnalyzer::new),
          Map.entry("hu", HungarianAnalyzer::new),
          Map.entry("hy", ArmenianAnalyzer::new),
          Map.entry("id", IndonesianAnalyzer::new),
          Map.entry("it", ItalianAnalyzer::new),
          Map.entry("ja", JapaneseAnalyzer::new),
          Map.entry("ko", KoreanAnalyzer::new),
          Map.entry("lt", LithuanianAnalyzer::new),
          Map.entry("lv", LatvianAnalyzer::new),
          Map.entry("ne", NepaliAnalyzer::new),
          Map.entry("nl", DutchAnalyzer::new),
          Map.entry("no", NorwegianAnalyzer::new),
          Map.entry("pl", MorfologikAnalyzer::new),
          Map.entry("pt", PortugueseAnalyzer::new),
          Map.entry("pt-br", BrazilianAnalyzer::new),
          Map.entry("ro", RomanianAnalyzer::new),
          Map.entry("ru", RussianAnalyzer::new),
          Map.entry("sr", SerbianAnalyzer::new),
          Map.entry("sv", SwedishAnalyzer::new),
          Map.entry("ta", TamilAnalyzer::new),
          Map.entry("te", TeluguAnalyzer::new),
          Map.entry("th", LanguageAnalyzers::icuSegmenting),
          Map.entry("tr", TurkishAnalyzer::new),
          Map.entry("uk", UkrainianMorfologikAnalyzer::new),
          Map.entry("vi", LanguageAnalyzers::icuSegmenting),
          Map.entry("zh", SmartChineseAnalyzer::new));

  private static final Set<String> ISO_LANGUAGES = Set.of(Locale.getISOLanguages());

  private LanguageAnalyzers() {}

  /** Normalises a language code ("EN" → "en", "" → "en"); rejects codes that name no language. */
  public static String normalize(String code) {
    String language = code == null ? "" : code.trim().toLowerCase(Locale.ROOT).replace('_', '-');
    if (language.isEmpty()) {
      return ENGLISH;
    }
    if (LUCENE_ANALYZERS.containsKey(language)) {
      return language;
    }
    String primary =
        language.contains("-") ? language.substring(0, language.indexOf('-')) : language;
    if (LUCENE_ANALYZERS.containsKey(primary)) {
      return primary;
    }
    if (!ISO_LANGUAGES.contains(primary) && !primary.equals("ckb")) {
      throw new InvalidInputException(
          "spec.language",
          "unknown language '"
              + (code.length() > 64 ? code.substring(0, 64) + "…" : code)
              + "': expected an ISO 639-1 code such as en, de, ar, zh, ja");
    }
    return primary;
  }

  /** A fresh analyzer for the (normalised) language. */
  public static Analyzer forLanguage(String code) {
    String language = normalize(code);
    return LUCENE_ANALYZERS.getOrDefault(language, LanguageAnalyzers::icuSegmenting).get();
  }

  /** Whether the language has a dedicated analyzer (false: the Unicode-aware default is used). */
  public static boolean hasDedicatedAnalyzer(String code) {
    return LUCENE_ANALYZERS.containsKey(normalize(code));
  }

  /** Anserini's DefaultEnglishAnalyzer with Porter stemming and Lucene's English stop words. */
  private static Analyzer anseriniEnglish() {
    return new Analyzer() {
      @Override
      protected TokenStreamComponents createComponents(String fieldName) {
        Tokenizer source = new StandardTokenizer();
        TokenStream result = new EnglishPossessiveFilter(source);
        result = new LowerCaseFilter(result);
        result = new StopFilter(result, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
        result = new PorterStemFilter(result);
        return new TokenStreamComponents(source, result);
      }

      @Override
      protected TokenStream normalize(String fieldName, TokenStream in) {
        return new LowerCaseFilter(in);
      }
    };
  }

  /** ICU word segmentation (dictionary-based for Thai, syllables for Vietnamese), NFKC casefold. */
  private static Analyzer icuSegmenting() {
    return new Analyzer() {
      @Override
      protected TokenStreamComponents createComponents(String fieldName) {
        Tokenizer source = new ICUTokenizer();
        return new TokenStreamComponents(source, new ICUNormalizer2Filter(source));
      }

      @Override
      protected TokenStream normalize(String fieldName, TokenStream in) {
        return new ICUNormalizer2Filter(in);
      }
    };
  }
}
