// The record types of `mongostore demo records`: a small materials database of the kind the
// RecordStore is for (seed 003 comes from httk): crystal structures with exact rational cells
// and fractional site positions, each referring to the calculation that produced it and the
// author who ran it.
//
// Structure backs the entry family "structures" (one record, named after its collection, so
// the `records` commands can rebind it without these types).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/records/declare.h"
#include "mongostore/records/rational.h"

namespace mongostore::tool::demo {

using records::Rational;

struct Author {
  std::string name;
  std::string affiliation;
  std::optional<std::string> email;  // contact data: not part of who the author is
};
inline auto declare_record(records::Tag<Author>) {
  using namespace records;
  return record<Author>("mongostore.demo.Author", field("name", &Author::name, indexed),
                        field("affiliation", &Author::affiliation),
                        field("email", &Author::email, identity_skip));
}

struct Calculation {
  std::string code;        // e.g. "VASP 6.4.2"
  std::string functional;  // e.g. "PBE"
  int64_t cutoff_ev = 0;
  int64_t kpoint_density = 0;
  std::shared_ptr<const Author> author;
};
inline auto declare_record(records::Tag<Calculation>) {
  using namespace records;
  return record<Calculation>("mongostore.demo.Calculation", field("code", &Calculation::code),
                             field("functional", &Calculation::functional, indexed),
                             field("cutoff_ev", &Calculation::cutoff_ev),
                             field("kpoint_density", &Calculation::kpoint_density),
                             field("author", &Calculation::author));
}

struct Site {
  std::string element;
  std::array<std::array<Rational, 3>, 1> position;  // fractional coordinates
};
inline auto declare_record(records::Tag<Site>) {
  using namespace records;
  return record<Site>("mongostore.demo.Site", field("element", &Site::element),
                      field("position", &Site::position));
}

struct Structure {
  std::string formula;                          // reduced, elements in alphabetical order: "Fe2O3"
  int64_t spacegroup = 0;                       // 1..230
  std::array<std::array<Rational, 3>, 3> cell;  // lattice vectors in Å, exact
  std::vector<Site> sites;
  int64_t nsites = 0;
  double energy_ev_per_atom = 0;
  std::shared_ptr<const Calculation> calculation;
  std::shared_ptr<const Author> author;
  std::optional<std::string> note;  // curation remarks: not part of the identity
};
inline auto declare_record(records::Tag<Structure>) {
  using namespace records;
  return record<Structure>(
             "mongostore.demo.Structure", field("formula", &Structure::formula, indexed),
             field("spacegroup", &Structure::spacegroup, indexed), field("cell", &Structure::cell),
             field("sites", &Structure::sites), field("nsites", &Structure::nsites, indexed),
             field("energy_ev_per_atom", &Structure::energy_ev_per_atom),
             field("calculation", &Structure::calculation), field("author", &Structure::author),
             field("note", &Structure::note, identity_skip))
      .storage_name("structure")
      .index({"spacegroup", "formula"});
}

}  // namespace mongostore::tool::demo
