// Result sets and rows of a searcher (include/mongostore/records/searcher.h).
#include "mongostore/error.h"
#include "mongostore/records/searcher.h"

namespace mongostore::records {

const Value& ResultRow::operator[](size_t i) const {
  if (i >= values_.size()) {
    throw Error(ErrorCode::kBadValue, "row has " + std::to_string(values_.size()) +
                                          " outputs, no output " + std::to_string(i));
  }
  return values_[i];
}

const Value& ResultRow::operator[](std::string_view name) const {
  for (size_t i = 0; i < names_->size(); ++i) {
    if ((*names_)[i] == name) return values_[i];
  }
  throw Error(ErrorCode::kNoSuchKey, "no output named '" + std::string(name) + "'");
}

const ResultRow& ResultSet::operator[](size_t i) const {
  if (i >= rows_.size()) {
    throw Error(ErrorCode::kBadValue, "result set has " + std::to_string(rows_.size()) +
                                          " rows, no row " + std::to_string(i));
  }
  return rows_[i];
}

std::optional<ResultRow> ResultSet::first() const {
  if (rows_.empty()) return std::nullopt;
  return rows_[0];
}

const ResultRow& ResultSet::one() const {
  if (rows_.empty()) throw NoResultError("the query matched no row; one() needs exactly one");
  if (rows_.size() > 1) {
    throw MultipleResultsError("the query matched " + std::to_string(rows_.size()) +
                               " rows; one() needs exactly one");
  }
  return rows_[0];
}

size_t ResultSet::index_of(std::string_view name) const {
  for (size_t i = 0; i < names_->size(); ++i) {
    if ((*names_)[i] == name) return i;
  }
  throw Error(ErrorCode::kNoSuchKey, "no output named '" + std::string(name) + "'");
}

std::vector<Value> ResultSet::scalars(std::string_view name) const {
  if (names_->empty()) return {};
  size_t i = name.empty() ? 0 : index_of(name);
  std::vector<Value> out;
  out.reserve(rows_.size());
  for (const ResultRow& row : rows_) out.push_back(row.values()[i]);
  return out;
}

std::vector<Value> ResultSet::column(std::string_view name) const {
  size_t i = index_of(name);
  if (record_outputs_[i]) {
    throw Error(ErrorCode::kTypeMismatch,
                "output '" + std::string(name) + "' is a record, not a scalar column");
  }
  return scalars(name);
}

}  // namespace mongostore::records
