// Content-id hashing of a typical record against OpenSSL's SHA-256 of the same bytes alone.
//
// The record is a crystal structure as a RecordStore saves it: ten scalar fields (strings,
// ints, floats, a bool, an aware datetime, a rational), the 3x3 rational cell as a
// frac_vector, and 50 child sites. Rows in microseconds per record, each with its ratio to the
// OpenSSL SHA-256 of the very bytes it hashes (canonical forms computed once beforehand):
//   1. refs:   content_id of the root whose sites are record_refs (digests known, as when the
//              children were saved first): canonical form + one SHA-256; baseline: SHA-256 of
//              the root's form;
//   2. merkle: content_id of the root whose sites are record nodes (species + three rational
//              coordinates each): 50 child forms and digests, then the root's; baseline: the
//              51 SHA-256 digests of those 51 forms;
//   3. build:  building the merkle row's node tree from plain values, then its content id
//              (same baseline as 2).
// Each figure is the best of --trials runs of --records records.
//
//   build/bench/content_id_bench [--records N] [--trials T]
#include <fmt/core.h>
#include <openssl/evp.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mongostore/records/content_id.h"
#include "mongostore/records/identity_node.h"

using namespace mongostore::records;
using Clock = std::chrono::steady_clock;

namespace {

struct Site {
  std::string species;
  Rational x, y, z;
};

std::vector<Site> make_sites() {
  static const char* kSpecies[] = {"Na", "Cl", "O", "Fe", "Si"};
  std::vector<Site> sites;
  for (int i = 0; i < 50; ++i) {
    sites.push_back({kSpecies[i % 5], Rational(i % 8, 8), Rational((i * 3) % 16, 16),
                     Rational((i * 7) % 12, 12)});
  }
  return sites;
}

// Fields are moved into place, as a schema-driven encoder would (an initializer list would
// copy every node, including the 50 sites).
IdentityNode site_node(const Site& s) {
  std::vector<IdentityNode::Entry> fields;
  fields.reserve(4);
  fields.emplace_back("species", IdentityNode::string(s.species));
  fields.emplace_back("x", IdentityNode::rational(s.x));
  fields.emplace_back("y", IdentityNode::rational(s.y));
  fields.emplace_back("z", IdentityNode::rational(s.z));
  return IdentityNode::record("bench.Site", std::move(fields));
}

IdentityNode structure_node(const std::vector<Site>& sites, bool as_refs) {
  std::vector<Rational> cell = {Rational(541, 100), Rational(0),        Rational(0),
                                Rational(0),        Rational(541, 100), Rational(0),
                                Rational(0),        Rational(0),        Rational(1083, 200)};
  std::vector<IdentityNode> site_nodes;
  site_nodes.reserve(sites.size());
  for (const Site& s : sites) {
    IdentityNode n = site_node(s);
    site_nodes.push_back(as_refs ? IdentityNode::record_ref(content_id(n)) : std::move(n));
  }
  IdentityNode::Datetime computed{2026, 12, 4, 23, 0, 0, 123456, true, 3600};
  std::vector<IdentityNode::Entry> f;
  f.reserve(12);
  f.emplace_back("formula", IdentityNode::string("Na25Cl25"));
  f.emplace_back("spacegroup", IdentityNode::integer(225));
  f.emplace_back("spacegroup_symbol", IdentityNode::string("Fm-3m"));
  f.emplace_back("energy", IdentityNode::floating(-3.3456789012345));
  f.emplace_back("band_gap", IdentityNode::floating(5.02));
  f.emplace_back("natoms", IdentityNode::integer(50));
  f.emplace_back("stable", IdentityNode::boolean(true));
  f.emplace_back("computed_at", IdentityNode::datetime(computed));
  f.emplace_back("volume", IdentityNode::rational(Rational(158514, 1000)));
  f.emplace_back("source", IdentityNode::string("bench dataset \u00e9"));
  f.emplace_back("cell", IdentityNode::frac_vector(cell, {3, 3}));
  f.emplace_back("sites", IdentityNode::list(std::move(site_nodes)));
  return IdentityNode::record("bench.Structure", std::move(f));
}

// Best microseconds per record over `trials` runs of `records` calls.
double best_us(int trials, int records, const std::function<void()>& one) {
  double best = 1e300;
  for (int t = 0; t < trials; ++t) {
    auto start = Clock::now();
    for (int i = 0; i < records; ++i) one();
    double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / records;
    best = std::min(best, us);
  }
  return best;
}

volatile size_t sink;  // keeps results observable

}  // namespace

int main(int argc, char** argv) {
  int records = 20000;
  int trials = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--records") == 0) records = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--trials") == 0) trials = std::atoi(argv[i + 1]);
  }
  std::vector<Site> sites = make_sites();
  IdentityNode refs = structure_node(sites, true);
  IdentityNode merkle = structure_node(sites, false);
  std::string form = canonical_form(refs);
  if (canonical_form(merkle) != form) {
    fmt::print(stderr, "the merkle and refs forms differ\n");
    return 1;
  }

  std::vector<std::string> forms;  // the 50 sites' forms and the root's, as merkle hashes them
  for (const Site& s : sites) forms.push_back(canonical_form(site_node(s)));
  forms.push_back(form);

  const EVP_MD* sha256 = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  auto digest = [&](const std::string& bytes) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestInit_ex2(ctx, sha256, nullptr);
    EVP_DigestUpdate(ctx, bytes.data(), bytes.size());
    EVP_DigestFinal_ex(ctx, md, &length);
    sink = sink + md[0];
  };
  double baseline = best_us(trials, records, [&] { digest(form); });
  double baseline_all = best_us(trials, records, [&] {
    for (const std::string& f : forms) digest(f);
  });
  double refs_us = best_us(trials, records, [&] { sink = sink + content_id(refs)[0]; });
  double merkle_us = best_us(trials, records, [&] { sink = sink + content_id(merkle)[0]; });
  double build_us =
      best_us(trials, records, [&] { sink = sink + content_id(structure_node(sites, false))[0]; });

  fmt::print(
      "content id of a structure (12 fields, 3x3 frac_vector cell, 50 sites); root form "
      "{} bytes; best of {} x {} records\n",
      form.size(), trials, records);
  auto row = [](const char* what, double us, double base) {
    fmt::print("{:<48} {:>10.2f} {:>11.2f} {:>6.2f}\n", what, us, base, us / base);
  };
  fmt::print("{:<48} {:>10} {:>11} {:>6}\n", "", "us/record", "OpenSSL us", "ratio");
  row("content_id, sites as record_refs (1 digest)", refs_us, baseline);
  row("content_id, sites as records (51 digests)", merkle_us, baseline_all);
  row("build the node tree + content_id (51 digests)", build_us, baseline_all);
  EVP_MD_CTX_free(ctx);
  return 0;
}
