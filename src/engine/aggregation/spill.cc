// Spill files for blocking stages: see spill.h.
#include "engine/aggregation/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace mongostore::engine::aggregation_detail {

namespace {

constexpr size_t kWriteBuffer = 1 << 16;

[[noreturn]] void io_error(const std::string& stage, const std::string& what, int err) {
  throw Error(ErrorCode::kOperationFailed,
              stage + " could not spill to disk: " + what + ": " + std::strerror(err));
}

void put_u32(std::string& out, uint32_t v) {
  char b[4] = {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff),
               static_cast<char>((v >> 16) & 0xff), static_cast<char>((v >> 24) & 0xff)};
  out.append(b, 4);
}

uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

class FileRunCursor final : public RunCursor {
 public:
  FileRunCursor(const SpillFile& file, int fd, uint64_t begin, uint64_t end, size_t buffer)
      : file_(file), fd_(fd), pos_(begin), end_(end), buffer_(buffer) {}

  bool next() override {
    if (filled_ == used_ && pos_ >= end_) return false;
    uint8_t len[4];
    read_exact(len, 4);
    key_.resize(get_u32(len));
    read_exact(reinterpret_cast<uint8_t*>(key_.data()), key_.size());
    read_exact(len, 4);
    uint32_t size = get_u32(len);
    if (size < 5 || size > 64u * 1024 * 1024) corrupt();
    document_.resize(size);
    std::memcpy(document_.data(), len, 4);
    read_exact(document_.data() + 4, size - 4);
    return true;
  }
  const std::string& key() const override { return key_; }
  Document take_document() override { return Document::adopt(std::move(document_)); }

 private:
  [[noreturn]] void corrupt() const {
    throw Error(ErrorCode::kOperationFailed,
                file_.stage() + " could not read back its spill file '" + file_.path() +
                    "': the run is truncated or corrupt");
  }
  void read_exact(uint8_t* out, size_t n) {
    while (n > 0) {
      if (used_ == filled_) refill();
      size_t take = std::min(n, filled_ - used_);
      std::memcpy(out, buffer_.data() + used_, take);
      used_ += take;
      out += take;
      n -= take;
    }
  }
  void refill() {
    if (pos_ >= end_) corrupt();
    size_t want = static_cast<size_t>(std::min<uint64_t>(buffer_.size(), end_ - pos_));
    ssize_t got;
    do {
      got = ::pread(fd_, buffer_.data(), want, static_cast<off_t>(pos_));
    } while (got < 0 && errno == EINTR);
    if (got < 0) io_error(file_.stage(), "reading '" + file_.path() + "' failed", errno);
    if (got == 0) corrupt();
    pos_ += static_cast<uint64_t>(got);
    used_ = 0;
    filled_ = static_cast<size_t>(got);
  }

  const SpillFile& file_;
  int fd_;
  uint64_t pos_;
  uint64_t end_;
  std::vector<uint8_t> buffer_;
  size_t used_ = 0;
  size_t filled_ = 0;
  std::string key_;
  std::vector<uint8_t> document_;
};

class MemoryRunCursor final : public RunCursor {
 public:
  explicit MemoryRunCursor(std::vector<std::pair<std::string, Document>> rows)
      : rows_(std::move(rows)) {}
  bool next() override {
    if (started_) {
      // Drop the finished row's memory as the merge goes.
      rows_[at_].first = std::string();
      ++at_;
    }
    started_ = true;
    return at_ < rows_.size();
  }
  const std::string& key() const override { return rows_[at_].first; }
  Document take_document() override { return std::move(rows_[at_].second); }

 private:
  std::vector<std::pair<std::string, Document>> rows_;
  size_t at_ = 0;
  bool started_ = false;
};

}  // namespace

void write_run(SpillFile& file, const KeyedRows& rows) {
  for (const auto& [key, doc] : rows) file.add(key, doc.data(), doc.size());
  file.end_run();
}

std::unique_ptr<DocumentSource> merge_runs(std::shared_ptr<SpillFile> file, KeyedRows rest,
                                           const RunContext& ctx, size_t limit) {
  auto runs = open_all_runs(*file, ctx, 1);
  runs.push_back(make_memory_run(std::move(rest)));
  auto merger = std::make_shared<RunMerger>(std::move(runs));
  return std::make_unique<FunctionSource>(
      [file, merger, left = limit]() mutable -> std::optional<Document> {
        RunCursor* top = merger->top();
        if (!top || left == 0) return std::nullopt;
        --left;
        Document d = top->take_document();
        merger->pop();
        return d;
      });
}

std::string spill_directory_for(const AggregationContext& context) {
  if (!context.spill_directory.empty()) return context.spill_directory;
  static std::mutex mutex;
  static std::string directory;
  std::lock_guard<std::mutex> lock(mutex);
  if (directory.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mongostore-spill-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      io_error("aggregation", "cannot create a spill directory '" + pattern + "'", errno);
    }
    directory = pattern;
    // Empty at exit (every spill file is removed by its owner); remove the directory too.
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove(directory, ec);
    });
  }
  return directory;
}

SpillFile::SpillFile(const RunContext& ctx, std::string stage)
    : stage_(std::move(stage)), stats_(ctx.context->spill_stats) {
  std::string directory = spill_directory_for(*ctx.context);
  std::string name = stage_;
  name.erase(std::remove(name.begin(), name.end(), '$'), name.end());
  path_ = directory + "/" + name + "-XXXXXX";
  fd_ = ::mkostemp(path_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    int err = errno;
    io_error(stage_, "cannot create a file in spill directory '" + directory + "'", err);
  }
  buffer_.reserve(kWriteBuffer);
  if (stats_) ++stats_->files;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
}

void SpillFile::add(std::string_view key, const uint8_t* document, size_t size) {
  put_u32(buffer_, static_cast<uint32_t>(key.size()));
  buffer_.append(key);
  buffer_.append(reinterpret_cast<const char*>(document), size);
  ++records_in_run_;
  if (stats_) stats_->bytes += static_cast<int64_t>(4 + key.size() + size);
  if (buffer_.size() >= kWriteBuffer) flush();
}

void SpillFile::flush() {
  const char* p = buffer_.data();
  size_t left = buffer_.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error(stage_, "writing '" + path_ + "' failed", errno);
    if (n == 0) io_error(stage_, "writing '" + path_ + "' failed", ENOSPC);
    p += n;
    left -= static_cast<size_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
  buffer_.clear();
}

void SpillFile::end_run() {
  flush();
  runs_.emplace_back(run_start_, written_);
  run_start_ = written_;
  if (stats_) {
    ++stats_->runs;
    stats_->records += static_cast<int64_t>(records_in_run_);
  }
  records_in_run_ = 0;
}

std::unique_ptr<RunCursor> SpillFile::open_run(size_t i, size_t buffer_bytes) const {
  return std::make_unique<FileRunCursor>(*this, fd_, runs_[i].first, runs_[i].second,
                                         std::max<size_t>(buffer_bytes, 1));
}

std::unique_ptr<RunCursor> make_memory_run(std::vector<std::pair<std::string, Document>> rows) {
  return std::make_unique<MemoryRunCursor>(std::move(rows));
}

std::vector<std::unique_ptr<RunCursor>> open_all_runs(const SpillFile& file, const RunContext& ctx,
                                                      size_t extra_runs) {
  size_t n = file.runs() + extra_runs;
  size_t buffer = std::clamp<size_t>(ctx.context->memory_limit_bytes / std::max<size_t>(n, 1), 4096,
                                     size_t{1} << 16);
  std::vector<std::unique_ptr<RunCursor>> out;
  for (size_t i = 0; i < file.runs(); ++i) out.push_back(file.open_run(i, buffer));
  return out;
}

RunMerger::RunMerger(std::vector<std::unique_ptr<RunCursor>> runs) : runs_(std::move(runs)) {
  for (size_t i = 0; i < runs_.size(); ++i) {
    if (runs_[i]->next()) heap_.push_back(i);
  }
  std::make_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return after(a, b); });
}

bool RunMerger::after(size_t a, size_t b) const {
  int c = runs_[a]->key().compare(runs_[b]->key());
  return c != 0 ? c > 0 : a > b;
}

void RunMerger::pop() {
  auto cmp = [this](size_t a, size_t b) { return after(a, b); };
  std::pop_heap(heap_.begin(), heap_.end(), cmp);
  if (runs_[heap_.back()]->next()) {
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  } else {
    heap_.pop_back();
  }
}

}  // namespace mongostore::engine::aggregation_detail
