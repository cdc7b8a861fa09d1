// Record types the RecordStore tests declare: a small materials-science graph (a structure
// with child sites, a referenced author and calculation) covering every field type, plus
// types for each dedup policy.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/records/declare.h"

namespace mongostore::records::testing {

using R = Rational;

struct Author {
  std::string name;
  std::optional<std::string> email;  // metadata: not part of the identity
};
inline auto declare_record(Tag<Author>) {
  return record<Author>("mongostore.tests.Author", field("name", &Author::name, indexed),
                        field("email", &Author::email, identity_skip));
}

struct Site {
  std::string element;
  std::array<std::array<R, 3>, 1> position;
  double occupancy = 1.0;
};
inline auto declare_record(Tag<Site>) {
  return record<Site>("mongostore.tests.Site", field("element", &Site::element),
                      field("position", &Site::position), field("occupancy", &Site::occupancy));
}

struct Structure {
  std::string formula;
  int64_t spacegroup = 0;
  std::array<std::array<R, 3>, 3> cell;
  std::vector<Site> sites;
  std::shared_ptr<const Author> author;
  std::optional<double> energy;
  std::vector<std::string> tags;
  std::vector<double> magmoms;
  std::vector<R> charges;
  DateTime created;
  std::optional<Date> published;
  Bytes blob;
  bool relaxed = false;
  std::vector<std::array<R, 3>> forces;  // variable rows
  std::string note;                      // identity_skip
  int32_t scratch = 7;                   // skip: never stored
};
inline auto declare_record(Tag<Structure>) {
  return record<Structure>(
             "mongostore.tests.Structure", field("formula", &Structure::formula, indexed),
             field("spacegroup", &Structure::spacegroup, indexed), field("cell", &Structure::cell),
             field("sites", &Structure::sites), field("author", &Structure::author, nullable),
             field("energy", &Structure::energy), field("tags", &Structure::tags),
             field("magmoms", &Structure::magmoms), field("charges", &Structure::charges),
             field("created", &Structure::created), field("published", &Structure::published),
             field("blob", &Structure::blob), field("relaxed", &Structure::relaxed),
             field("forces", &Structure::forces), field("note", &Structure::note, identity_skip),
             field("scratch", &Structure::scratch, skip))
      .storage_name("structure")
      .index({"spacegroup", "formula"});
}

/// by_value dedup: a label with a child list.
struct Label {
  std::string text;
  std::optional<int64_t> rank;
  std::vector<std::string> parts;
};
inline auto declare_record(Tag<Label>) {
  return record<Label>("mongostore.tests.Label", field("text", &Label::text),
                       field("rank", &Label::rank), field("parts", &Label::parts))
      .dedup(Dedup::kByValue);
}

/// A record holding a by_value record: the dedup of children happens bottom-up.
struct Shelf {
  std::string name;
  std::vector<Label> labels;
};
inline auto declare_record(Tag<Shelf>) {
  return record<Shelf>("mongostore.tests.Shelf", field("name", &Shelf::name),
                       field("labels", &Shelf::labels))
      .dedup(Dedup::kByValue);
}

/// dedup none: every save inserts.
struct Event {
  std::string what;
};
inline auto declare_record(Tag<Event>) {
  return record<Event>("mongostore.tests.Event", field("what", &Event::what)).dedup(Dedup::kNone);
}

/// A unique user index.
struct Account {
  std::string login;
  std::string display;
};
inline auto declare_record(Tag<Account>) {
  return record<Account>("mongostore.tests.Account", field("login", &Account::login, unique),
                         field("display", &Account::display))
      .dedup(Dedup::kNone);
}

/// A record type that may point at itself (cycles are refused at save).
struct Node {
  std::string name;
  std::shared_ptr<const Node> next;
};
inline auto declare_record(Tag<Node>) {
  return record<Node>("mongostore.tests.Node", field("name", &Node::name),
                      field("next", &Node::next, nullable));
}

/// Two backings of one entry family.
struct Crystal {
  std::string formula;
};
inline auto declare_record(Tag<Crystal>) {
  return record<Crystal>("mongostore.tests.Crystal", field("formula", &Crystal::formula));
}
struct Molecule {
  std::string formula;
  int64_t charge = 0;
};
inline auto declare_record(Tag<Molecule>) {
  return record<Molecule>("mongostore.tests.Molecule", field("formula", &Molecule::formula),
                          field("charge", &Molecule::charge));
}

/// A typical structure with `sites` child sites and a referenced author.
inline Structure make_structure(std::string formula, int sites = 4, std::string author = "Ada") {
  Structure s;
  s.formula = std::move(formula);
  s.spacegroup = 225;
  s.cell = {{{R(1, 3), R(0), R(0)}, {R(0), R(-7, 2), R(0)}, {R(0), R(0), R(5)}}};
  for (int i = 0; i < sites; ++i) {
    Site site;
    site.element = i % 2 ? "O" : "Ti";
    site.position = {{{R(i, 8), R(1, 2), R(-i, 3)}}};
    site.occupancy = 1.0 / (i + 1);
    s.sites.push_back(site);
  }
  s.author = std::make_shared<const Author>(Author{std::move(author), "ada@example.org"});
  s.energy = -12.5;
  s.tags = {"perovskite", "cubic"};
  s.magmoms = {0.1, -0.0, 5e-324};
  s.charges = {R(2, 3), R(-1)};
  s.created = DateTime::from_fields(2026, 1, 2, 3, 4, 5, 600, 3600);
  s.published = Date{2026, 2, 28};
  s.blob = Bytes{std::string("\0\x01\xff", 3)};
  s.relaxed = true;
  s.forces = {{R(1, 10), R(0), R(-1, 10)}};
  s.note = "from a test";
  return s;
}

}  // namespace mongostore::records::testing
