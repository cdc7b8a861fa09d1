// DocumentBuilder's inline appends (type byte, key and payload written straight into its
// buffer) against an independent encoder written here from the BSON spec: random documents
// of every type, nested past the builder's inline frame stack, must come out byte for byte
// the same. Each document is also rebuilt through the generic append(key, Value) path, and
// through copies and moves of a half-built builder.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/error.h"
#include "support/error_code.h"

namespace mongostore::bson {
namespace {

// The reference encoder: a level is its bytes without the length prefix and terminator.
struct RefLevel {
  std::string bytes;
  uint32_t next_index = 0;
};

template <class T>
void put(std::string& out, T v) {
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  out.append(raw, sizeof(T));
}

std::string close_level(const std::string& body) {
  std::string out;
  put(out, static_cast<uint32_t>(body.size() + 5));
  out += body;
  out.push_back('\0');
  return out;
}

std::vector<uint8_t> bytes_of(DocumentView v) {
  return std::vector<uint8_t>(v.data(), v.data() + v.size());
}
std::vector<uint8_t> bytes_of(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

// Builds one random document twice: through `b` and through the reference encoder.
class RandomDocument {
 public:
  explicit RandomDocument(uint32_t seed) : rng_(seed) {}

  std::string build(DocumentBuilder& b, int max_depth) {
    levels_.assign(1, RefLevel{});
    arrays_.assign(1, false);
    fill(b, max_depth);
    // Leave some levels open: finish() closes them.
    while (levels_.size() > 1) close_ref();
    return close_level(levels_[0].bytes);
  }

  // Half of a document, leaving `b` with open levels; the rest is finished by finish_build.
  void start(DocumentBuilder& b, int max_depth) {
    levels_.assign(1, RefLevel{});
    arrays_.assign(1, false);
    fill(b, max_depth);
  }
  std::string finish_build(DocumentBuilder& b) {
    append_scalar(b);
    while (levels_.size() > 1) close_ref();
    return close_level(levels_[0].bytes);
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string random_text(size_t max) {
    std::string s(pick(max + 1), 'x');
    for (char& c : s) c = static_cast<char>('a' + pick(26));
    return s;
  }

  // The key of the next element at the current level: generated inside an array.
  std::string ref_key(bool& pushed) {
    pushed = arrays_.back();
    if (pushed) return std::to_string(levels_.back().next_index++);
    // Sometimes long (past the short-key byte loop), sometimes empty.
    size_t kind = pick(10);
    if (kind == 0) return "";
    if (kind == 1) return random_text(80);
    return random_text(12);
  }

  void append_scalar(DocumentBuilder& b) {
    bool pushed = false;
    std::string key = ref_key(pushed);
    std::string& out = levels_.back().bytes;
    auto head = [&](BsonType t) {
      out.push_back(static_cast<char>(t));
      out += key;
      out.push_back('\0');
    };
    // Appends through push() inside an array (which generates the same key), else append().
    auto emit = [&](auto&& v) {
      if (pushed) {
        b.push(v);
      } else {
        b.append(key, v);
      }
    };
    switch (pick(17)) {
      case 0: {
        double v = std::uniform_real_distribution<double>(-1e9, 1e9)(rng_);
        head(BsonType::kDouble);
        put(out, v);
        emit(v);
        break;
      }
      case 1: {
        int32_t v = static_cast<int32_t>(rng_());
        head(BsonType::kInt32);
        put(out, v);
        emit(v);
        break;
      }
      case 2: {
        int64_t v = static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_());
        head(BsonType::kInt64);
        put(out, v);
        emit(v);
        break;
      }
      case 3: {
        bool v = pick(2) == 1;
        head(BsonType::kBool);
        out.push_back(v ? 1 : 0);
        emit(v);
        break;
      }
      case 4: {
        std::string v = random_text(pick(4) == 0 ? 300 : 20);
        head(BsonType::kString);
        put(out, static_cast<uint32_t>(v.size() + 1));
        out += v;
        out.push_back('\0');
        if (pick(2) == 0) {
          emit(std::string_view(v));
        } else {
          emit(v);
        }
        break;
      }
      case 5:
        head(BsonType::kNull);
        emit(Null{});
        break;
      case 6:
        head(BsonType::kUndefined);
        emit(Undefined{});
        break;
      case 7:
        head(BsonType::kMinKey);
        emit(MinKey{});
        break;
      case 8:
        head(BsonType::kMaxKey);
        emit(MaxKey{});
        break;
      case 9: {
        ObjectId v;
        for (auto& byte : v.bytes) byte = static_cast<uint8_t>(rng_());
        head(BsonType::kObjectId);
        out.append(reinterpret_cast<const char*>(v.bytes.data()), 12);
        emit(v);
        break;
      }
      case 10: {
        Decimal128 v{(uint64_t{rng_()} << 32) | rng_(), (uint64_t{rng_()} << 32) | rng_()};
        head(BsonType::kDecimal128);
        put(out, v.low);
        put(out, v.high);
        emit(v);
        break;
      }
      case 11: {
        DateTime v{static_cast<int64_t>(rng_())};
        head(BsonType::kDateTime);
        put(out, v.millis);
        emit(v);
        break;
      }
      case 12: {
        Timestamp v{static_cast<uint32_t>(rng_()), static_cast<uint32_t>(rng_())};
        head(BsonType::kTimestamp);
        put(out, v.increment);
        put(out, v.seconds);
        emit(v);
        break;
      }
      case 13: {
        std::string data = random_text(20);
        uint8_t subtype = pick(2) == 0 ? 0x00 : 0x02;
        head(BsonType::kBinary);
        if (subtype == 0x02) {
          put(out, static_cast<uint32_t>(data.size() + 4));
          out.push_back(static_cast<char>(subtype));
          put(out, static_cast<uint32_t>(data.size()));
        } else {
          put(out, static_cast<uint32_t>(data.size()));
          out.push_back(static_cast<char>(subtype));
        }
        out += data;
        keep_.push_back(data);
        const std::string& kept = keep_.back();
        emit(BinaryView{subtype, std::span<const uint8_t>(
                                     reinterpret_cast<const uint8_t*>(kept.data()), kept.size())});
        break;
      }
      case 14: {
        std::string pattern = random_text(10), options = random_text(3);
        head(BsonType::kRegex);
        out += pattern;
        out.push_back('\0');
        out += options;
        out.push_back('\0');
        emit(RegexView{pattern, options});
        break;
      }
      case 15: {
        // A whole sub-document appended by view.
        Document sub = make_document("a", 1, "b", "two");
        head(BsonType::kDocument);
        out.append(reinterpret_cast<const char*>(sub.view().data()), sub.view().size());
        emit(sub.view());
        break;
      }
      default: {
        Array sub = make_array(1, "x", 2.5);
        head(BsonType::kArray);
        out.append(reinterpret_cast<const char*>(sub.view().data()), sub.view().size());
        emit(sub);
        break;
      }
    }
  }

  void open_ref(DocumentBuilder& b, bool array) {
    bool pushed = false;
    std::string key = ref_key(pushed);
    std::string& out = levels_.back().bytes;
    out.push_back(static_cast<char>(array ? BsonType::kArray : BsonType::kDocument));
    out += key;
    out.push_back('\0');
    if (pushed) {
      array ? b.push_array() : b.push_document();
    } else {
      array ? b.open_array(key) : b.open_document(key);
    }
    levels_.push_back(RefLevel{});
    arrays_.push_back(array);
  }

  void close_ref() {
    std::string body = close_level(levels_.back().bytes);
    levels_.pop_back();
    arrays_.pop_back();
    levels_.back().bytes += body;
  }

  void fill(DocumentBuilder& b, int max_depth) {
    size_t elements = pick(12);
    for (size_t i = 0; i < elements; ++i) {
      if (static_cast<int>(levels_.size()) <= max_depth && pick(5) == 0) {
        open_ref(b, pick(2) == 0);
        fill(b, max_depth);
        // Leave the innermost levels open now and then: finish() must close them.
        if (pick(6) == 0) return;
        close_ref();
        b.close();
      } else {
        append_scalar(b);
      }
    }
  }

  std::mt19937 rng_;
  std::vector<RefLevel> levels_;
  std::vector<bool> arrays_;
  std::vector<std::string> keep_;
};

// Copies every element of `doc` through append(key, Value), the generic path.
Document rebuild_through_values(DocumentView doc) {
  DocumentBuilder b;
  for (const Element& e : doc) b.append(e.key, e.value);
  return b.finish();
}

TEST(BuilderFastPath, RandomDocumentsMatchTheReferenceEncoder) {
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    RandomDocument random(seed);
    DocumentBuilder b;
    if (seed % 3 == 0) b.reserve(seed);  // reserved and unreserved buffers alike
    // Deep enough now and then to spill past the builder's inline frames.
    int depth = seed % 10 == 0 ? 20 : 4;
    std::string expected = random.build(b, depth);
    size_t size_before_finish = b.size();
    Document built = b.finish();
    ASSERT_EQ(bytes_of(built.view()), bytes_of(expected)) << "seed " << seed;
    EXPECT_LE(size_before_finish, built.view().size());
    // Valid BSON, and the same bytes again through the generic append(key, Value).
    Document validated = Document::from_bytes(bytes_of(built.view()));
    EXPECT_EQ(bytes_of(rebuild_through_values(validated.view())), bytes_of(expected))
        << "seed " << seed;
    // The builder is empty again after finish(), and reusable.
    EXPECT_EQ(b.size(), 4u);
    RandomDocument again(seed);
    std::string expected_again = again.build(b, depth);
    ASSERT_EQ(bytes_of(b.finish().view()), bytes_of(expected_again)) << "seed " << seed;
  }
}

TEST(BuilderFastPath, DeeplyNestedLevelsCloseInOrder) {
  // Forty levels: the first few frames are inline, the rest spill to the heap.
  DocumentBuilder b;
  for (int i = 0; i < 40; ++i) {
    if (i % 2 == 0) {
      b.open_document("d");
    } else {
      b.push_array();  // in a document: the key is "0" of the enclosing level's counter
    }
  }
  b.append("leaf", 1);
  Document doc = b.finish();
  Document validated = Document::from_bytes(bytes_of(doc.view()));
  int depth = 0;
  DocumentView level = validated.view();
  while (true) {
    auto it = level.begin();
    ASSERT_NE(it, level.end());
    if (it->key == "leaf") break;
    ASSERT_TRUE(it->value.is_document() || it->value.is_array());
    level = it->value.is_document() ? it->value.as_document() : it->value.as_array();
    ++depth;
  }
  EXPECT_EQ(depth, 40);
}

TEST(BuilderFastPath, CopiesAndMovesOfAHalfBuiltBuilderFinishTheSame) {
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    RandomDocument reference(seed);
    DocumentBuilder original;
    reference.start(original, seed % 4 == 0 ? 12 : 3);

    RandomDocument for_copy(seed), for_move(seed), for_assign(seed);
    DocumentBuilder scratch;
    for_copy.start(scratch, seed % 4 == 0 ? 12 : 3);
    for_move.start(scratch, seed % 4 == 0 ? 12 : 3);
    for_assign.start(scratch, seed % 4 == 0 ? 12 : 3);

    DocumentBuilder copy(original);
    DocumentBuilder assigned;
    assigned.append("overwritten", 1);
    assigned = original;
    std::string expected_copy = for_copy.finish_build(copy);
    std::string expected_assign = for_assign.finish_build(assigned);
    DocumentBuilder moved(std::move(original));
    std::string expected_move = for_move.finish_build(moved);

    EXPECT_EQ(bytes_of(copy.finish().view()), bytes_of(expected_copy)) << "seed " << seed;
    EXPECT_EQ(bytes_of(assigned.finish().view()), bytes_of(expected_assign)) << "seed " << seed;
    EXPECT_EQ(bytes_of(moved.finish().view()), bytes_of(expected_move)) << "seed " << seed;
    // The moved-from builder is a new, empty one.
    EXPECT_EQ(bytes_of(original.finish().view()), bytes_of(close_level("")));  // NOLINT
  }
}

TEST(BuilderFastPath, RefusalsLeaveTheBuilderUsable) {
  DocumentBuilder b;
  b.append("a", 1);
  EXPECT_EQ(testing::code_of([&] { b.append(std::string_view("k\0ey", 4), 2); }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(testing::code_of([&] { b.append(std::string(40, 'x') + std::string(1, '\0'), 2); }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(testing::code_of([&] { b.append("m", Value()); }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(testing::code_of([&] { b.close(); }), static_cast<int32_t>(ErrorCode::kInternalError));
  b.append("b", 2);
  EXPECT_EQ(bytes_of(b.finish().view()), bytes_of(make_document("a", 1, "b", 2).view()));
}

TEST(BuilderFastPath, TheKeysNulCheckSeesEveryPosition) {
  // The check reads a key a word at a time: a NUL anywhere, in keys of every length around
  // the word sizes, is refused; bytes that are not NUL (0x01, 0x80, 0xFF) are not.
  for (size_t length = 1; length <= 40; ++length) {
    for (size_t at = 0; at < length; ++at) {
      std::string key(length, 'k');
      key[at] = '\0';
      DocumentBuilder b;
      EXPECT_EQ(testing::code_of([&] { b.append(key, 1); }),
                static_cast<int32_t>(ErrorCode::kBadValue))
          << "length " << length << " at " << at;
      for (char c : {'\x01', '\x80', '\xff'}) {
        key[at] = c;
        DocumentBuilder ok;
        ok.append(key, 1);
        Document doc = ok.finish();
        EXPECT_EQ(doc.view().begin()->key, key);
      }
    }
  }
}

}  // namespace
}  // namespace mongostore::bson
