package dev.tenbin.index.collection;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A collection's document ids by ordinal (insertion order) and ordinals by id, compact: the ids'
 * UTF-8 bytes back to back in pages of at most {@value #PAGE_BYTES} bytes (each id after its length
 * as a varint), the start of each in pages of {@value #STARTS_PER_PAGE} ints, and an
 * open-addressing table of ordinals keyed by the ids' hashes, at most three quarters full. 10 to 16
 * bytes a document besides the ids' own bytes (a {@code List<String>} and a {@code HashMap<String,
 * Integer>} take about 120), so a million documents cost tens of megabytes, not hundreds.
 *
 * <p>Bytes and starts grow a page at a time, so a large collection leaves no smaller copies of them
 * behind as it grows; only the table is rebuilt when it grows. (An array grown by doubling leaves
 * each smaller copy as garbage, which an ingest's old generation keeps until a full collection:
 * BENCHMARKS.md, "A million documents and more".) Ids take at most 2 GiB of bytes in all. Not
 * thread-safe: the collection guards it.
 */
final class DocumentIds {
  /** Bytes of a full page of ids (an id longer than that gets a page of its own). */
  static final int PAGE_BYTES = 1 << 20;

  /** Starts of ids a full page of starts holds. */
  static final int STARTS_PER_PAGE = 1 << 16;

  private static final int MAX_PAGES = 1 << (31 - 20); // an id's start: page << 20 | offset

  private byte[][] pages = {new byte[1 << 10]};
  private int lastPage; // the page ids are appended to
  private int lastPageUsed; // bytes of it in use
  private int[][] starts = {new int[1 << 6]};
  private int size;
  private int[] table = new int[1 << 8]; // ordinal + 1; 0 = empty
  private int mask = table.length - 1;

  /** The number of ids. */
  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Appends {@code id} as ordinal {@link #size()}; the caller keeps ids unique. */
  void add(String id) {
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    int needed = varintLength(utf8.length) + utf8.length;
    byte[] page = pageWithRoomFor(needed);
    int start = lastPage << 20 | lastPageUsed;
    int at = writeVarint(page, lastPageUsed, utf8.length);
    System.arraycopy(utf8, 0, page, at, utf8.length);
    lastPageUsed = at + utf8.length;
    setStart(size, start);
    size++;
    if (size * 4L > table.length * 3L) {
      rehash(table.length * 2);
    } else {
      place(size - 1, hash(utf8, 0, utf8.length));
    }
  }

  /**
   * The page to append {@code needed} bytes to: the last one, grown by doubling while it is smaller
   * than a full page, or a new one.
   */
  private byte[] pageWithRoomFor(int needed) {
    byte[] page = pages[lastPage];
    if (lastPageUsed + needed <= page.length) {
      return page;
    }
    if (page.length < PAGE_BYTES && lastPageUsed + needed <= PAGE_BYTES) {
      page =
          Arrays.copyOf(
              page, Math.min(PAGE_BYTES, Math.max(page.length * 2, lastPageUsed + needed)));
      pages[lastPage] = page;
      return page;
    }
    if (lastPage + 1 >= MAX_PAGES) {
      throw new IllegalStateException("a collection's document ids may take at most 2 GiB");
    }
    if (lastPage + 1 == pages.length) {
      pages = Arrays.copyOf(pages, pages.length * 2);
    }
    lastPage++;
    lastPageUsed = 0;
    pages[lastPage] = new byte[Math.max(PAGE_BYTES, needed)];
    return pages[lastPage];
  }

  private void setStart(int ordinal, int start) {
    int page = ordinal / STARTS_PER_PAGE;
    int slot = ordinal % STARTS_PER_PAGE;
    if (page == starts.length) {
      starts = Arrays.copyOf(starts, starts.length * 2);
    }
    if (starts[page] == null) {
      starts[page] = new int[STARTS_PER_PAGE];
    } else if (slot == starts[page].length) {
      starts[page] = Arrays.copyOf(starts[page], Math.min(STARTS_PER_PAGE, slot * 2));
    }
    starts[page][slot] = start;
  }

  private int start(int ordinal) {
    return starts[ordinal / STARTS_PER_PAGE][ordinal % STARTS_PER_PAGE];
  }

  /** Where an id's UTF-8 bytes are: {@code length} bytes of {@code page} from {@code at}. */
  private record Span(byte[] page, int at, int length) {}

  /** The span of id {@code ordinal}'s bytes, after its varint length. */
  private Span span(int ordinal) {
    int start = start(ordinal);
    byte[] page = pages[start >>> 20];
    int from = start & (PAGE_BYTES - 1);
    int length = readVarint(page, from);
    return new Span(page, from + varintLength(length), length);
  }

  /** The id of {@code ordinal}. */
  String id(int ordinal) {
    if (ordinal < 0 || ordinal >= size) {
      throw new IndexOutOfBoundsException("ordinal " + ordinal + " of " + size + " documents");
    }
    Span span = span(ordinal);
    return new String(span.page(), span.at(), span.length(), StandardCharsets.UTF_8);
  }

  /** The ordinal of {@code id}, or null when the collection has no such document. */
  Integer ordinalOf(String id) {
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    int slot = hash(utf8, 0, utf8.length) & mask;
    while (true) {
      int entry = table[slot];
      if (entry == 0) {
        return null;
      }
      int ordinal = entry - 1;
      Span span = span(ordinal);
      if (Arrays.equals(span.page(), span.at(), span.at() + span.length(), utf8, 0, utf8.length)) {
        return ordinal;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** Keeps the first {@code count} ids. */
  void truncateTo(int count) {
    if (count < 0 || count > size) {
      throw new IllegalArgumentException("cannot keep " + count + " of " + size + " ids");
    }
    if (count == size) {
      return;
    }
    int start = start(count);
    for (int page = (start >>> 20) + 1; page <= lastPage; page++) {
      pages[page] = null;
    }
    lastPage = start >>> 20;
    lastPageUsed = start & (PAGE_BYTES - 1);
    for (int page = (count + STARTS_PER_PAGE - 1) / STARTS_PER_PAGE; page < starts.length; page++) {
      starts[page] = null;
    }
    if (starts[0] == null) {
      starts[0] = new int[1 << 6];
    }
    size = count;
    rehash(table.length);
  }

  /** Removes every id. */
  void clear() {
    truncateTo(0);
  }

  /** ordinal → position of its id in ascending id order (Java's string order: the tie policy). */
  int[] idOrder() {
    int[] ordinals = ordinalsInIdOrder();
    int[] order = new int[size];
    for (int position = 0; position < size; position++) {
      order[ordinals[position]] = position;
    }
    return order;
  }

  /** The ordinals sorted by ascending id (Java's string order, as {@link #idOrder()}). */
  int[] ordinalsInIdOrder() {
    Integer[] ordinals = new Integer[size];
    String[] ids = new String[size];
    for (int i = 0; i < size; i++) {
      ordinals[i] = i;
      ids[i] = id(i);
    }
    Arrays.sort(ordinals, (a, b) -> ids[a].compareTo(ids[b]));
    int[] sorted = new int[size];
    for (int position = 0; position < size; position++) {
      sorted[position] = ordinals[position];
    }
    return sorted;
  }

  private void rehash(int capacity) {
    table = new int[capacity];
    mask = capacity - 1;
    for (int ordinal = 0; ordinal < size; ordinal++) {
      Span span = span(ordinal);
      place(ordinal, hash(span.page(), span.at(), span.at() + span.length()));
    }
  }

  private void place(int ordinal, int hash) {
    int slot = hash & mask;
    while (table[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    table[slot] = ordinal + 1;
  }

  private static int varintLength(int value) {
    int length = 1;
    while ((value >>>= 7) != 0) {
      length++;
    }
    return length;
  }

  /** Writes {@code value} as a varint at {@code at}; returns the position after it. */
  private static int writeVarint(byte[] page, int at, int value) {
    while ((value & ~0x7F) != 0) {
      page[at++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    page[at++] = (byte) value;
    return at;
  }

  private static int readVarint(byte[] page, int at) {
    int value = 0;
    for (int shift = 0; ; shift += 7) {
      byte b = page[at++];
      value |= (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
  }

  /** Hash of bytes {@code [from, to)} (FNV-1a, then mixed). */
  private static int hash(byte[] data, int from, int to) {
    int h = 0x811c9dc5;
    for (int i = from; i < to; i++) {
      h ^= data[i] & 0xff;
      h *= 0x01000193;
    }
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    return h;
  }
}
