package dev.tenbin.index.collection;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A collection's document ids by ordinal (insertion order) and ordinals by id, compact: the ids'
 * UTF-8 bytes back to back with one offset each, and an open-addressing table of ordinals keyed by
 * the ids' hashes. About 13 bytes a document plus the ids' own bytes (a {@code List<String>} and a
 * {@code HashMap<String, Integer>} take about 120), so a million documents cost tens of megabytes,
 * not hundreds. Not thread-safe: the collection guards it.
 */
final class DocumentIds {
  private byte[] bytes = new byte[1 << 12];
  private int used;
  private int[] offsets = new int[1 << 8]; // offsets[i] = start of id i; offsets[size] = used
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
    if (used + utf8.length > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, used + utf8.length));
    }
    System.arraycopy(utf8, 0, bytes, used, utf8.length);
    if (size + 2 > offsets.length) {
      offsets = Arrays.copyOf(offsets, offsets.length * 2);
    }
    offsets[size] = used;
    used += utf8.length;
    offsets[size + 1] = used;
    size++;
    if (size * 2 > table.length) {
      rehash(table.length * 2);
    } else {
      place(size - 1, hash(bytes, offsets[size - 1], used));
    }
  }

  /** The id of {@code ordinal}. */
  String id(int ordinal) {
    if (ordinal < 0 || ordinal >= size) {
      throw new IndexOutOfBoundsException("ordinal " + ordinal + " of " + size + " documents");
    }
    return new String(
        bytes, offsets[ordinal], offsets[ordinal + 1] - offsets[ordinal], StandardCharsets.UTF_8);
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
      int from = offsets[ordinal];
      if (Arrays.equals(bytes, from, offsets[ordinal + 1], utf8, 0, utf8.length)) {
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
    size = count;
    used = offsets[count];
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
      place(ordinal, hash(bytes, offsets[ordinal], offsets[ordinal + 1]));
    }
  }

  private void place(int ordinal, int hash) {
    int slot = hash & mask;
    while (table[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    table[slot] = ordinal + 1;
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
