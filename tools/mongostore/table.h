// A plain text table with aligned columns, for the inspection commands' default output.
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

namespace mongostore::tool {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size() - 1; }

  /// Columns padded to their widest cell, two spaces apart; the last column is not padded.
  std::string render() const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
      if (width.size() < row.size()) width.resize(row.size(), 0);
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    std::string out;
    for (const auto& row : rows_) {
      for (size_t i = 0; i < row.size(); ++i) {
        out += row[i];
        if (i + 1 < row.size()) out += std::string(width[i] - row[i].size() + 2, ' ');
      }
      out += '\n';
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace mongostore::tool
