// FieldPath: a dotted path ("a.b.0.c"), split once at compile time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mongostore::engine::matcher_detail {

class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view dotted);

  struct Part {
    std::string name;
    bool numeric = false;  // all digits: may also index an array
  };

  const std::string& dotted() const { return dotted_; }
  const std::vector<Part>& parts() const { return parts_; }
  bool empty() const { return parts_.empty(); }

 private:
  std::string dotted_;
  std::vector<Part> parts_;
};

}  // namespace mongostore::engine::matcher_detail
