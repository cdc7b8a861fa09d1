// TimeZone: fixed offsets, and Olson zones from TZif files (RFC 8536) with their POSIX
// footer rule for instants past the last transition. Loaded zones are cached for the life of
// the process (a few KB each).
#include "engine/aggregation/time_zone.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

// One POSIX TZ rule: "EST5EDT,M3.2.0,M11.1.0" (see tzset(3)).
struct PosixRule {
  int std_offset = 0;  // seconds east of UTC
  bool has_dst = false;
  int dst_offset = 0;
  struct When {
    char kind = 'M';  // 'M' month.week.day, 'J' Julian day 1-365 (no leap day), 'D' day 0-365
    int month = 0, week = 0, day = 0;
    int time = 7200;  // seconds after local midnight (may be negative or past 24h)
  } start, end;
};

struct ZoneRules {
  std::vector<int64_t> transitions;  // seconds since the epoch, ascending
  std::vector<uint8_t> types;        // offset index of each transition
  std::vector<int> offsets;          // seconds east of UTC, per local time type
  int before_first = 0;              // the offset before the first transition
  std::optional<PosixRule> footer;   // past the last transition
};

namespace {

// ---- POSIX TZ strings ----------------------------------------------------------------------

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : s_(s) {}

  std::optional<PosixRule> parse() {
    PosixRule r;
    if (!name()) return std::nullopt;
    auto std_west = offset();
    if (!std_west) return std::nullopt;
    r.std_offset = -*std_west;  // POSIX offsets count west of Greenwich
    if (at_end()) return r;
    if (!name()) return std::nullopt;
    r.has_dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (!at_end() && peek() != ',') {
      auto dst_west = offset();
      if (!dst_west) return std::nullopt;
      r.dst_offset = -*dst_west;
    }
    if (at_end()) {  // no rule given: the US rule POSIX assumes
      r.start = {'M', 3, 2, 0, 7200};
      r.end = {'M', 11, 1, 0, 7200};
      return r;
    }
    if (!eat(',') || !when(&r.start) || !eat(',') || !when(&r.end) || !at_end()) {
      return std::nullopt;
    }
    return r;
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return s_[i_]; }
  bool eat(char c) {
    if (at_end() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool name() {
    if (eat('<')) {
      while (!at_end() && peek() != '>') ++i_;
      return eat('>');
    }
    size_t start = i_;
    while (!at_end() && ((peek() >= 'A' && peek() <= 'Z') || (peek() >= 'a' && peek() <= 'z'))) {
      ++i_;
    }
    return i_ - start >= 3;
  }
  std::optional<int> number() {
    size_t start = i_;
    int v = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') v = v * 10 + (s_[i_++] - '0');
    if (i_ == start) return std::nullopt;
    return v;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  std::optional<int> offset() {
    int sign = 1;
    if (eat('-')) {
      sign = -1;
    } else {
      eat('+');
    }
    auto h = number();
    if (!h) return std::nullopt;
    int total = *h * 3600;
    if (eat(':')) {
      auto m = number();
      if (!m) return std::nullopt;
      total += *m * 60;
      if (eat(':')) {
        auto sec = number();
        if (!sec) return std::nullopt;
        total += *sec;
      }
    }
    return sign * total;
  }
  bool when(PosixRule::When* w) {
    if (eat('M')) {
      w->kind = 'M';
      auto m = number();
      if (!m || !eat('.')) return false;
      auto wk = number();
      if (!wk || !eat('.')) return false;
      auto d = number();
      if (!d) return false;
      w->month = *m;
      w->week = *wk;
      w->day = *d;
    } else if (eat('J')) {
      w->kind = 'J';
      auto n = number();
      if (!n) return false;
      w->day = *n;
    } else {
      w->kind = 'D';
      auto n = number();
      if (!n) return false;
      w->day = *n;
    }
    if (eat('/')) {
      auto t = offset();
      if (!t) return false;
      w->time = *t;
    }
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// Seconds since the epoch of `w` in `year`, read as local time at `offset` seconds east.
int64_t transition_at(const PosixRule::When& w, int64_t year, int offset) {
  int64_t day = 0;  // days since the epoch
  if (w.kind == 'M') {
    int64_t first = days_from_civil(year, static_cast<unsigned>(w.month), 1);
    int first_wday = static_cast<int>(((first % 7) + 11) % 7);  // 0 = Sunday
    int64_t d = first + ((w.day - first_wday + 7) % 7) + int64_t{w.week - 1} * 7;
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int in_month = kDays[w.month - 1] + (w.month == 2 && leap(year));
    while (d >= first + in_month) d -= 7;  // week 5: the last such day
    day = d;
  } else if (w.kind == 'J') {  // 1..365, February 29 never counted
    day = days_from_civil(year, 1, 1) + w.day - 1 + (leap(year) && w.day >= 60);
  } else {
    day = days_from_civil(year, 1, 1) + w.day;
  }
  return day * 86400 + w.time - offset;
}

int posix_offset_at(const PosixRule& r, int64_t seconds) {
  if (!r.has_dst) return r.std_offset;
  int64_t days = (seconds + r.std_offset) / 86400 - ((seconds + r.std_offset) % 86400 < 0);
  int64_t year = civil_from_days(days).year;                   // the local (standard time) year
  int64_t start = transition_at(r.start, year, r.std_offset);  // given in standard time
  int64_t end = transition_at(r.end, year, r.dst_offset);      // given in daylight time
  bool dst = start < end ? (seconds >= start && seconds < end)
                         : !(seconds >= end && seconds < start);  // southern hemisphere
  return dst ? r.dst_offset : r.std_offset;
}

// ---- TZif files ------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(const std::string& data) : d_(data) {}
  bool has(size_t n) const { return i_ + n <= d_.size(); }
  uint32_t u32() {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v = (v << 8) | static_cast<uint8_t>(d_[i_++]);
    return v;
  }
  int64_t i64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = (v << 8) | static_cast<uint8_t>(d_[i_++]);
    return static_cast<int64_t>(v);
  }
  uint8_t u8() { return static_cast<uint8_t>(d_[i_++]); }
  void skip(size_t n) { i_ += n; }
  size_t position() const { return i_; }
  const std::string& data() const { return d_; }

 private:
  const std::string& d_;
  size_t i_ = 0;
};

struct Counts {
  uint32_t isut, isstd, leap, time, type, chars;
};

std::optional<Counts> header(Reader& r, char* version) {
  if (!r.has(44) || r.data().compare(r.position(), 4, "TZif") != 0) return std::nullopt;
  r.skip(4);
  *version = static_cast<char>(r.u8());
  r.skip(15);
  Counts c{r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32()};
  return c;
}

std::shared_ptr<const ZoneRules> parse_tzif(const std::string& data) {
  Reader r(data);
  char version = 0;
  auto c = header(r, &version);
  if (!c) return nullptr;
  int time_size = 4;
  if (version >= '2') {
    // Skip the 32-bit block: the 64-bit one after it says the same for all time.
    r.skip(size_t{c->time} * 5 + size_t{c->type} * 6 + c->chars + size_t{c->leap} * 8 + c->isstd +
           c->isut);
    c = header(r, &version);
    if (!c) return nullptr;
    time_size = 8;
  }
  size_t body = size_t{c->time} * (time_size + 1) + size_t{c->type} * 6 + c->chars +
                size_t{c->leap} * (time_size + 4) + c->isstd + c->isut;
  if (c->type == 0 || !r.has(body)) return nullptr;
  auto z = std::make_shared<ZoneRules>();
  for (uint32_t k = 0; k < c->time; ++k) {
    z->transitions.push_back(time_size == 8 ? r.i64() : static_cast<int32_t>(r.u32()));
  }
  for (uint32_t k = 0; k < c->time; ++k) z->types.push_back(r.u8());
  std::vector<bool> dst;
  for (uint32_t k = 0; k < c->type; ++k) {
    z->offsets.push_back(static_cast<int32_t>(r.u32()));
    dst.push_back(r.u8() != 0);
    r.u8();  // abbreviation index
  }
  for (uint8_t t : z->types) {
    if (t >= c->type) return nullptr;
  }
  // Before the first transition: the first standard-time type (RFC 8536 3.2).
  z->before_first = z->offsets[0];
  for (uint32_t k = 0; k < c->type; ++k) {
    if (!dst[k]) {
      z->before_first = z->offsets[k];
      break;
    }
  }
  r.skip(c->chars + size_t{c->leap} * (time_size + 4) + c->isstd + c->isut);
  if (time_size == 8 && r.has(1) && r.u8() == '\n') {
    size_t start = r.position();
    size_t end = data.find('\n', start);
    if (end != std::string::npos && end > start) {
      z->footer = PosixParser(std::string_view(data).substr(start, end - start)).parse();
    }
  }
  return z;
}

// A name that stays inside the zoneinfo directory: letters, digits, '_', '-', '+' and '/'
// between components, no "..".
bool safe_zone_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.back() == '/' ||
      name.find("..") != std::string_view::npos || name.find("//") != std::string_view::npos) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '+' || ch == '/';
  });
}

std::shared_ptr<const ZoneRules> load_zone(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const ZoneRules>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  std::shared_ptr<const ZoneRules> rules;
  if (safe_zone_name(name)) {
    const char* dir = std::getenv("TZDIR");
    std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + name;
    // Only files: a directory ("Etc", "America") opens, but reading it throws.
    std::error_code ec;
    std::ifstream in;
    if (std::filesystem::is_regular_file(path, ec)) in.open(path, std::ios::binary);
    if (in.is_open()) {
      std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      rules = parse_tzif(data);
    }
  }
  cache.emplace(name, rules);  // an unknown name is remembered too: no file read per document
  return rules;
}

// "+05:30", "-0800", "+03": seconds east, or nullopt.
std::optional<int> fixed_offset(std::string_view s) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  std::string digits;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == ':' && i == 3) continue;
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    digits += s[i];
  }
  if (digits.size() != 2 && digits.size() != 4) return std::nullopt;
  int h = std::stoi(digits.substr(0, 2));
  int m = digits.size() == 4 ? std::stoi(digits.substr(2, 2)) : 0;
  int total = (h * 60 + m) * 60;
  return s[0] == '-' ? -total : total;
}

}  // namespace

TimeZone TimeZone::parse(const bson::Value& name) {
  if (name.type() != BsonType::kString) {
    fail(40517, "timezone must evaluate to a string, found " + type_name(name));
  }
  std::string_view s = name.as_string();
  TimeZone tz;
  if (s == "UTC" || s == "GMT" || s == "Z" || s == "Etc/UTC" || s == "Etc/GMT") return tz;
  if (auto offset = fixed_offset(s)) {
    tz.fixed_seconds_ = *offset;
    return tz;
  }
  // The date operators parse their `timezone` for every document; the zone named last on
  // this thread is kept, so a constant zone costs one comparison, not a lock and a lookup.
  thread_local std::string last_name;
  thread_local std::shared_ptr<const ZoneRules> last_rules;
  if (!last_rules || last_name != s) {
    last_rules = load_zone(std::string(s));
    last_name = s;
  }
  tz.rules_ = last_rules;
  if (!tz.rules_) fail(40485, "unrecognized time zone identifier: \"" + std::string(s) + "\"");
  return tz;
}

int TimeZone::offset_seconds_at(int64_t millis) const {
  if (!rules_) return fixed_seconds_;
  int64_t seconds = millis / 1000 - (millis % 1000 < 0);
  const ZoneRules& z = *rules_;
  if (z.transitions.empty() || seconds < z.transitions.front()) {
    if (z.transitions.empty() && z.footer) return posix_offset_at(*z.footer, seconds);
    return z.before_first;
  }
  if (seconds >= z.transitions.back() && z.footer) return posix_offset_at(*z.footer, seconds);
  auto it = std::upper_bound(z.transitions.begin(), z.transitions.end(), seconds);
  size_t index = static_cast<size_t>(it - z.transitions.begin()) - 1;
  return z.offsets[z.types[index]];
}

int64_t TimeZone::utc_of_local(int64_t local_millis) const {
  if (!rules_) return local_millis - int64_t{fixed_seconds_} * 1000;
  int first = offset_seconds_at(local_millis - int64_t{offset_seconds_at(local_millis)} * 1000);
  int64_t guess = local_millis - int64_t{first} * 1000;
  int second = offset_seconds_at(guess);
  return second == first ? guess : local_millis - int64_t{second} * 1000;
}

}  // namespace mongostore::engine::aggregation_detail
