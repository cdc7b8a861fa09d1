// PreparedFind: a find whose filter, projection, sort and options are fixed once and that is
// then run many times, for code that repeats the same query (a sweep, a poll):
//
//   client::FindOptions options;
//   options.projection = make_document("timers", 1);
//   client::PreparedFind due = executions.prepare_find(make_document("next_fire_at", bson::Null{}),
//                                                      options);
//   for (const bson::Document& doc : due.find()->to_vector()) ...
//   // the same projection and options with another filter of the caller's:
//   due.find(make_document("next_fire_at", make_document("$lte", now)));
//
// Contract: every run returns what Collection::find(filter, options) would return at that
// moment, with the same errors (a collection dropped, created again, given other indexes or
// another default collation in between is read as it is then). What is saved is the work of
// compiling and planning: on the embedded backend the filter, projection and sort are
// compiled once, and the index plan of the prepared filter is kept between runs while the
// collection, its indexes and their multikey state are what it was made from (a run with
// another filter compiles and plans that filter, except that a filter of one range condition
// on a finite number, {f: {$lte: n}}, reuses the kept plan of the last such run with its
// range moved to the new number, unless the collection has a partial index). The remote
// backend sends the plain find each run (the server plans every find it receives; nothing is
// kept on the server).
//
// Errors: on the embedded backend, an invalid filter, projection, sort, skip or limit fails
// in Collection::prepare_find with find's code; on the remote backend at the first run.
//
// Thread safety: a PreparedFind is immutable; its find() and for_each() may be called by
// several threads at once (each run has its own cursor, which is single-user as every
// Cursor). It holds its Client: the client stays open while a PreparedFind of it exists.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"

namespace mongostore::client {

/// A non-owning reference to a callable taking a bson::DocumentView (for for_each): it only
/// refers to the callable, which must outlive the call it is passed to.
class DocumentVisitor {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, DocumentVisitor> &&
           std::is_invocable_v<F&, bson::DocumentView>)
      DocumentVisitor(F&& f)  // NOLINT(google-explicit-constructor): passed as a lambda
      : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* callable, bson::DocumentView doc) {
          (*static_cast<std::remove_reference_t<F>*>(callable))(doc);
        }) {}
  void operator()(bson::DocumentView doc) const { call_(callable_, doc); }

 private:
  void* callable_;
  void (*call_)(void*, bson::DocumentView);
};

class PreparedFind {
 public:
  /// Runs the prepared find.
  std::unique_ptr<Cursor> find() const;
  /// Runs it with `filter` in place of the prepared filter (same projection, sort and
  /// options).
  std::unique_ptr<Cursor> find(bson::DocumentView filter) const;

  /// Runs the prepared find (or with `filter` in its place) and calls `visit` with each
  /// document find() would return (or the stored document it is projected from, when
  /// prepared with VisitedDocuments::kStoredWhenOnlySelecting), in the same order, without
  /// building a vector of them: the caller reads what it needs in place. The view lives
  /// only during its call to `visit` (copy what must outlive it). The documents are read
  /// batch by batch as a cursor reads them; a document the visitor writes may or may not be
  /// seen by a later batch, as with any cursor. Errors: find's, thrown from for_each; an
  /// exception thrown by `visit` ends the run (its cursor is closed) and propagates
  /// unchanged.
  void for_each(DocumentVisitor visit) const;
  void for_each(bson::DocumentView filter, DocumentVisitor visit) const;

  /// The prepared filter.
  const bson::Document& filter() const { return filter_; }
  const FindOptions& options() const { return options_; }

 private:
  friend class Collection;
  PreparedFind(std::shared_ptr<Client> client, std::string db, std::string coll,
               bson::Document filter, FindOptions options,
               std::shared_ptr<const engine::PreparedFind> compiled,
               std::shared_ptr<const engine::PreparedFind> visited)
      : client_(std::move(client)),
        db_(std::move(db)),
        coll_(std::move(coll)),
        filter_(std::move(filter)),
        options_(std::move(options)),
        compiled_(std::move(compiled)),
        visited_(std::move(visited)) {}

  // What for_each runs: visited_ when the backend compiled it, else find()'s run.
  std::unique_ptr<Cursor> visit_run(const bson::DocumentView* filter) const;

  std::shared_ptr<Client> client_;
  std::string db_, coll_;
  bson::Document filter_;
  FindOptions options_;
  std::shared_ptr<const engine::PreparedFind> compiled_;  // null: the plain find each run
  // for_each's compiled find: compiled_, or the same find without its projection when the
  // caller asked for stored documents and the projection only selects fields.
  std::shared_ptr<const engine::PreparedFind> visited_;
};

}  // namespace mongostore::client
