#include "engine/query/find_cursor.h"

#include "engine/operation_context.h"
#include "engine/query/planned_query.h"
#include "engine/query/prepared_find.h"

namespace mongostore::engine {

std::vector<bson::Document> FindCursor::next_batch() {
  if (done_) return {};
  OperationContext op(executor_.connection());
  return run_statement(transaction_.get(), op, [&] { return read_next_batch(op); });
}

void FindCursor::next_batch_into(DocumentBatch& batch) {
  batch.clear();
  if (done_) return;
  OperationContext op(executor_.connection());
  std::vector<bson::Document> made =
      run_statement(transaction_.get(), op, [&] { return read_next_batch(op, &batch); });
  for (bson::Document& d : made) batch.append(std::move(d));
}

bson::DocumentView FindCursor::sort_spec() const {
  static const bson::Document kNone;
  return sort_spec_ ? sort_spec_->view() : kNone.view();
}

const IndexHint& FindCursor::hint() const {
  static const IndexHint kNone;
  return hint_ ? *hint_ : kNone;
}

const Matcher& FindCursor::matcher() {
  if (deferred_) {
    matcher_ = compile_filter(deferred_->filter.view(), bson::Document(), deferred_->collation);
    deferred_.reset();
  }
  return matcher_;
}

std::vector<bson::Document> FindCursor::read_next_batch(OperationContext& op, DocumentBatch* into) {
  if (!started_) {
    auto plan = [&] {
      return executor_.start_index_cursor(db_, coll_, matcher(), sort_spec(), hint());
    };
    if (plan_cache_) {
      index_cursor_ = plan_cache_->get(filter());
      if (!index_cursor_) index_cursor_ = plan_cache_->plan(plan, matcher().filter());
    } else {
      index_cursor_ = plan();
    }
  }
  if (index_cursor_) {
    started_ = true;
    // Exact bounds (one index, not an OR) are the filter: the scan never consults the
    // matcher (read_index_batch reads no positions), so a deferred one stays uncompiled.
    const PlannedQuery& planned = *index_cursor_->plan;
    const bool exact =
        !planned.is_or() && !planned.id_key && planned.index_plan && planned.index_plan->exact;
    const Matcher& m = exact ? matcher_ : matcher();
    const Projection& reads = reads_ != nullptr ? *reads_ : projection_;
    if (into != nullptr) {
      executor_.read_index_batch(op, m, projection_, reads, &*index_cursor_, &skip_, &remaining_,
                                 batch_size_, &done_, into);
      return {};
    }
    return executor_.read_index_batch(op, m, projection_, reads, &*index_cursor_, &skip_,
                                      &remaining_, batch_size_, &done_);
  }
  matcher();  // every other read filters through it
  if (!started_ && !sort_.empty() && allow_disk_use_ && remaining_ < 0) {
    external_ = executor_.external_sort(keep_alive_, db_, coll_, matcher_, sort_spec(), hint(),
                                        memory_limit_);
    started_ = true;
  }
  if (external_) {
    std::vector<bson::Document> out;
    while (out.size() < batch_size_) {
      std::optional<bson::Document> d = external_->next();
      if (!d) {
        done_ = true;
        external_.reset();  // its spill files go now
        break;
      }
      if (skip_ > 0) {
        --skip_;
        continue;
      }
      out.push_back(projection_.is_identity() ? std::move(*d) : projection_.apply(*d));
    }
    return out;
  }
  if (!started_ && !sort_.empty()) {
    materialized_ = true;
    sorted_ = executor_.query_results(op, db_, coll_, matcher_, projection_, sort_spec(), sort_,
                                      skip_, remaining_, hint(), allow_disk_use_, memory_limit_);
    for (const bson::Document& d : sorted_) sorted_bytes_ += d.size();
    started_ = true;
  }
  if (materialized_) {
    std::vector<bson::Document> out;
    while (sorted_next_ < sorted_.size() && out.size() < batch_size_) {
      sorted_bytes_ -= sorted_[sorted_next_].size();
      out.push_back(std::move(sorted_[sorted_next_++]));
    }
    if (sorted_next_ >= sorted_.size()) {
      done_ = true;
      sorted_.clear();
      sorted_bytes_ = 0;
    }
    return out;
  }
  return executor_.read_batch(op, db_, coll_, matcher_, projection_, &collection_, &last_key_,
                              &started_, &skip_, &remaining_, batch_size_, &done_);
}

}  // namespace mongostore::engine
