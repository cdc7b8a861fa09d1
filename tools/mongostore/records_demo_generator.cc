#include "records_demo_generator.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace mongostore::tool::demo {
namespace {

// splitmix64: the same numbers on every platform and standard library (std's distributions
// are not), so a batch is the same batch everywhere.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Draw {
 public:
  explicit Draw(uint64_t state) : state_(state) {}
  /// Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) {
    state_ = mix(state_);
    return lo + static_cast<int64_t>(state_ % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t state_;
};

constexpr const char* kElements[] = {"H",  "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Na", "Mg",
                                     "Al", "Si", "P",  "S",  "Cl", "K",  "Ca", "Sc", "Ti", "V",
                                     "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
                                     "Se", "Sr", "Y",  "Zr", "Nb", "Mo", "Ag", "Sn", "Sb", "Te",
                                     "Ba", "La", "Ce", "Hf", "Ta", "W",  "Pt", "Au", "Pb", "Bi"};

// Lengths in milli-ångström; each cell entry is an exact rational number of ångström.
std::array<std::array<Rational, 3>, 3> cell_for(int64_t spacegroup, Draw& d) {
  int64_t a = d.between(2800, 12500), b = d.between(2800, 12500), c = d.between(2800, 12500);
  auto r = [](int64_t milli, int64_t num = 1, int64_t den = 1) {
    return Rational(milli * num, 1000 * den);
  };
  Rational zero(0);
  if (spacegroup >= 195) return {{{r(a), zero, zero}, {zero, r(a), zero}, {zero, zero, r(a)}}};
  if (spacegroup >= 143) {
    // Hexagonal: b is a rotated by 120 degrees, with sqrt(3)/2 taken as the rational 433/500.
    return {{{r(a), zero, zero}, {r(a, -1, 2), r(a, 433, 500), zero}, {zero, zero, r(c)}}};
  }
  if (spacegroup >= 75) return {{{r(a), zero, zero}, {zero, r(a), zero}, {zero, zero, r(c)}}};
  if (spacegroup >= 16) return {{{r(a), zero, zero}, {zero, r(b), zero}, {zero, zero, r(c)}}};
  int64_t tilt = -d.between(1, 40);  // hundredths: a monoclinic beta above 90 degrees
  if (spacegroup >= 3) {
    return {{{r(a), zero, zero}, {zero, r(b), zero}, {r(c, tilt, 100), zero, r(c)}}};
  }
  int64_t shear = d.between(1, 30);
  return {{{r(a), zero, zero},
           {r(b, shear, 100), r(b), zero},
           {r(c, tilt, 100), r(c, shear, 100), r(c)}}};
}

}  // namespace

StructureGenerator::StructureGenerator(uint64_t seed) : seed_(seed) {
  const char* names[][2] = {
      {"Astrid Lindqvist", "Computational Materials Group, Example Institute"},
      {"Kofi Mensah", "Solid State Theory Lab, Example University"},
      {"Mei Tanaka", "High-Throughput Screening Unit, Example Institute"},
      {"Rafael Ortega", "Crystal Chemistry Department, Example College"},
      {"Ilse de Vries", "Materials Informatics Center, Example University"}};
  for (const auto& [name, affiliation] : names) {
    std::string email = std::string(name).substr(0, std::string(name).find(' '));
    std::transform(email.begin(), email.end(), email.begin(), ::tolower);
    authors_.push_back(
        std::make_shared<const Author>(Author{name, affiliation, email + "@example.org"}));
  }
  const char* codes[] = {"VASP 6.4.2", "Quantum ESPRESSO 7.2", "ABINIT 9.10"};
  const char* functionals[] = {"PBE", "PBEsol", "SCAN", "r2SCAN"};
  int i = 0;
  for (const char* code : codes) {
    for (const char* functional : functionals) {
      calculations_.push_back(std::make_shared<const Calculation>(
          Calculation{code, functional, 400 + 40 * (i % 4), 1000 * (1 + i % 5),
                      authors_[i % authors_.size()]}));
      ++i;
    }
  }
}

Structure StructureGenerator::structure(int64_t index) const {
  Draw d(mix(seed_ ^ mix(static_cast<uint64_t>(index))));
  constexpr int64_t kElementCount = sizeof(kElements) / sizeof(kElements[0]);
  // 1 to 4 distinct elements with 1 to 4 atoms each per formula unit, and as many formula
  // units as bring the cell to 10..50 sites.
  std::map<std::string, int64_t> counts;
  int64_t species = d.between(1, 4);
  while (static_cast<int64_t>(counts.size()) < species) {
    counts.emplace(kElements[d.between(0, kElementCount - 1)], d.between(1, 4));
  }
  int64_t per_unit = 0, divisor = 0;
  for (const auto& [e, n] : counts) {
    per_unit += n;
    divisor = std::gcd(divisor, n);
  }
  int64_t min_z = (10 + per_unit - 1) / per_unit, max_z = 50 / per_unit;
  int64_t z = d.between(min_z, std::max(min_z, max_z));
  Structure s;
  for (const auto& [e, n] : counts) {
    s.formula += e;
    if (n / divisor != 1) s.formula += std::to_string(n / divisor);
  }
  s.spacegroup = d.between(1, 230);
  s.cell = cell_for(s.spacegroup, d);
  for (const auto& [e, n] : counts) {
    for (int64_t k = 0; k < n * z; ++k) {
      Site site;
      site.element = e;
      for (auto& x : site.position[0]) x = Rational(d.between(0, 23), 24);
      s.sites.push_back(std::move(site));
    }
  }
  s.nsites = static_cast<int64_t>(s.sites.size());
  s.energy_ev_per_atom = -1.5 - static_cast<double>(d.between(0, 65000)) / 10000.0;
  s.calculation = calculations_[static_cast<size_t>(d.between(0, calculations_.size() - 1))];
  s.author = s.calculation->author;
  return s;
}

}  // namespace mongostore::tool::demo
