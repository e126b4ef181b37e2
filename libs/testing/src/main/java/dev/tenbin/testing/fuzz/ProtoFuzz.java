package dev.tenbin.testing.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Builds protobuf messages for fuzzing from any message type's descriptor, so a fuzz target covers
 * every field of every request, including fields added after it was written: from raw bytes ({@link
 * #parse}, what a hostile client can send) or field by field from a {@link FuzzedDataProvider}
 * ({@link #generate}: enum values known and unknown, edge numbers, NaN, empty, long and hostile
 * strings, nested messages, repeated fields of small and large sizes). String fields take values
 * from per-field hints (e.g. ids of models or collections that exist) so generated requests get
 * past the first lookup.
 */
public final class ProtoFuzz {
  /** Strings that have broken services before: paths, control characters, templates, huge. */
  private static final List<String> HOSTILE =
      List.of(
          "",
          " ",
          "\u0000",
          "../../../../etc/passwd",
          "/etc/passwd",
          "${HOME}",
          "~",
          "..",
          ".",
          "/",
          "a/b",
          "CON",
          "\uFEFF",
          "\uD800",
          "😀",
          "\t\n\r",
          "%s%n",
          "null",
          "hub:",
          "dense:",
          "a:b:c",
          "-1",
          "9223372036854775808",
          "NaN",
          "\u202Eabc");

  /** Nested messages deeper than this are left empty. */
  private static final int MAX_DEPTH = 4;

  private final Map<String, List<String>> hints;

  /**
   * @param hints per field name ({@code model_id}, {@code collection}, ...), values that exist on
   *     the server under test; a hinted string field takes one of them most of the time
   */
  public ProtoFuzz(Map<String, List<String>> hints) {
    this.hints = Map.copyOf(hints);
  }

  /**
   * The message of {@code prototype}'s type that {@code bytes} encode, or null when they encode
   * none.
   */
  @SuppressWarnings("unchecked")
  public static <M extends Message> M parse(M prototype, byte[] bytes) {
    try {
      return (M) prototype.getParserForType().parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  /** A message of {@code prototype}'s type with fields chosen by {@code data}. */
  @SuppressWarnings("unchecked")
  public <M extends Message> M generate(M prototype, FuzzedDataProvider data) {
    return (M) new Generation(data).fill(prototype.newBuilderForType(), 0).build();
  }

  /** One message being generated; at most two huge strings per message keep executions fast. */
  private final class Generation {
    private final FuzzedDataProvider data;
    private int hugeStringsLeft = 2;

    Generation(FuzzedDataProvider data) {
      this.data = data;
    }

    private Message.Builder fill(Message.Builder builder, int depth) {
      for (FieldDescriptor field : builder.getDescriptorForType().getFields()) {
        if (data.remainingBytes() == 0 || !data.consumeBoolean()) {
          continue;
        }
        if (field.isRepeated()) {
          int count = data.consumeInt(0, 15) == 0 ? data.consumeInt(0, 300) : data.consumeInt(0, 9);
          for (int i = 0; i < count && data.remainingBytes() > 0; i++) {
            builder.addRepeatedField(field, value(builder, field, depth));
          }
        } else {
          builder.setField(field, value(builder, field, depth));
        }
      }
      return builder;
    }

    private Object value(Message.Builder builder, FieldDescriptor field, int depth) {
      return switch (field.getJavaType()) {
        case INT -> integer(data);
        case LONG -> data.consumeBoolean() ? (long) integer(data) : data.consumeLong();
        case FLOAT -> data.consumeBoolean() ? data.consumeFloat() : (float) data.consumeInt(-2, 2);
        case DOUBLE ->
            data.consumeBoolean() ? data.consumeDouble() : (double) data.consumeInt(-2, 2);
        case BOOLEAN -> data.consumeBoolean();
        case STRING -> string(field.getName());
        case BYTE_STRING -> ByteString.copyFrom(data.consumeBytes(data.consumeInt(0, 64)));
        case ENUM -> enumValue(field.getEnumType(), data);
        case MESSAGE ->
            depth >= MAX_DEPTH
                ? builder.newBuilderForField(field).build()
                : fill(builder.newBuilderForField(field), depth + 1).build();
      };
    }

    private String string(String field) {
      List<String> known = hints.get(field);
      int choice = data.consumeInt(0, 9);
      if (known != null && !known.isEmpty() && choice < 6) {
        return data.pickValue(known);
      }
      if (choice == 7 && hugeStringsLeft > 0) {
        hugeStringsLeft--;
        return String.valueOf(data.consumeChar()).repeat(data.consumeInt(0, 120_000));
      }
      return choice == 6 ? data.pickValue(HOSTILE) : data.consumeString(48);
    }
  }

  private static int integer(FuzzedDataProvider data) {
    return switch (data.consumeInt(0, 3)) {
      case 0 -> data.consumeInt(0, 12);
      case 1 -> data.consumeInt(-1, 1100);
      case 2 ->
          data.pickValue(
              new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, 1, 1 << 20, 100_001});
      default -> data.consumeInt();
    };
  }

  private static Object enumValue(EnumDescriptor type, FuzzedDataProvider data) {
    if (data.consumeInt(0, 7) == 0) {
      return type.findValueByNumberCreatingIfUnknown(data.consumeInt(-3, 100));
    }
    return data.pickValue(type.getValues());
  }

  /** {@code message} with {@code rewrite} applied to every string it holds, however deep. */
  @SuppressWarnings("unchecked")
  public static <M extends Message> M mapStrings(M message, UnaryOperator<String> rewrite) {
    Message.Builder builder = message.toBuilder();
    for (Map.Entry<FieldDescriptor, Object> entry : message.getAllFields().entrySet()) {
      FieldDescriptor field = entry.getKey();
      if (field.getJavaType() != FieldDescriptor.JavaType.STRING
          && field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (field.isRepeated()) {
        builder.clearField(field);
        for (Object element : (List<?>) entry.getValue()) {
          builder.addRepeatedField(field, mapValue(field, element, rewrite));
        }
      } else {
        builder.setField(field, mapValue(field, entry.getValue(), rewrite));
      }
    }
    return (M) builder.build();
  }

  private static Object mapValue(
      FieldDescriptor field, Object value, UnaryOperator<String> rewrite) {
    return field.getJavaType() == FieldDescriptor.JavaType.STRING
        ? rewrite.apply((String) value)
        : mapStrings((Message) value, rewrite);
  }
}
