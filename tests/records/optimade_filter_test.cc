// The OPTIMADE filter parser: a table of filters from the specification ("API Filtering Format
// Specification", its examples, and the corners of "The Filter Language EBNF Grammar"), each
// valid one with the canonical text of its tree, each invalid one with the column of its error;
// the tree's shape for the constructs the translation reads; the limits; and a bounded
// randomized robustness run over mutations of valid filters.
#include "mongostore/records/optimade_filter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/records/errors.h"
#include "mongostore/records/query.h"

namespace mongostore::records {
namespace {

using optimade::BareProperty;
using optimade::Comparison;
using optimade::Expression;
using optimade::Has;
using optimade::Known;
using optimade::Length;
using optimade::Logical;
using optimade::Operator;
using optimade::Value;

struct ValidCase {
  std::string filter;
  std::string canonical;
};

struct InvalidCase {
  std::string filter;
  int64_t column;
};

// Filters of the grammar, with the canonical text of their tree.
const std::vector<ValidCase>& valid_cases() {
  static const std::vector<ValidCase> cases = {
      // --- The specification's examples.
      {R"(_exmpl_melting_point<300 AND nelements=4 AND chemical_formula_descriptive="SiO2")",
       R"(_exmpl_melting_point < 300 AND nelements = 4 AND chemical_formula_descriptive = "SiO2")"},
      {R"(NOT ( chemical_formula_hill = "Al" AND chemical_formula_anonymous = "A" OR chemical_formula_anonymous = "H2O" AND NOT chemical_formula_hill = "Ti" ))",
       R"(NOT (chemical_formula_hill = "Al" AND chemical_formula_anonymous = "A" OR chemical_formula_anonymous = "H2O" AND NOT chemical_formula_hill = "Ti"))"},
      {"nelements > 3", "nelements > 3"},
      {R"(chemical_formula_hill = "H2O" AND chemical_formula_anonymous != "AB")",
       R"(chemical_formula_hill = "H2O" AND chemical_formula_anonymous != "AB")"},
      {R"(_exmpl_aax <= +.1e8 OR nelements >= 10 AND NOT ( _exmpl_x != "Some string" OR NOT _exmpl_a = 7))",
       R"(_exmpl_aax <= +.1e8 OR nelements >= 10 AND NOT (_exmpl_x != "Some string" OR NOT _exmpl_a = 7))"},
      {R"(_exmpl_spacegroup="P2")", R"(_exmpl_spacegroup = "P2")"},
      {"_exmpl_cell_volume<100.0", "_exmpl_cell_volume < 100.0"},
      {"_exmpl_band_gap > 5.0 AND _exmpl_molecular_weight < 350",
       "_exmpl_band_gap > 5.0 AND _exmpl_molecular_weight < 350"},
      {"_exmpl_some_string_property = 42", "_exmpl_some_string_property = 42"},
      {"5 < _exmpl_a", "5 < _exmpl_a"},
      {"((NOT (_exmpl_a>_exmpl_b)) AND _exmpl_x>0)", "NOT _exmpl_a > _exmpl_b AND _exmpl_x > 0"},
      {"5 < 7", "5 < 7"},
      {R"(chemical_formula_anonymous CONTAINS "C2" AND chemical_formula_anonymous STARTS WITH "A2")",
       R"(chemical_formula_anonymous CONTAINS "C2" AND chemical_formula_anonymous STARTS WITH "A2")"},
      {R"(chemical_formula_anonymous STARTS "A2" AND chemical_formula_anonymous ENDS WITH "D1")",
       R"(chemical_formula_anonymous STARTS WITH "A2" AND chemical_formula_anonymous ENDS WITH "D1")"},
      {"property = TRUE", "property = TRUE"},
      {"property != FALSE", "property != FALSE"},
      {"_exmpl_has_inversion_symmetry AND NOT _exmpl_is_primitive",
       "_exmpl_has_inversion_symmetry AND NOT _exmpl_is_primitive"},
      {R"(elements HAS "H" AND elements HAS ALL "H","He","Ga","Ta" AND elements HAS ONLY "H","He","Ga","Ta" AND elements HAS ANY "H", "He", "Ga", "Ta")",
       R"(elements HAS "H" AND elements HAS ALL "H", "He", "Ga", "Ta" AND elements HAS ONLY "H", "He", "Ga", "Ta" AND elements HAS ANY "H", "He", "Ga", "Ta")"},
      {R"(elements HAS ONLY "H","He","Ga","Ta")", R"(elements HAS ONLY "H", "He", "Ga", "Ta")"},
      {R"(elements:_exmpl_element_counts HAS "H":6 AND elements:_exmpl_element_counts HAS ALL "H":6,"He":7 AND elements:_exmpl_element_counts HAS ONLY "H":6 AND elements:_exmpl_element_counts HAS ANY "H":6,"He":7 AND elements:_exmpl_element_counts HAS ONLY "H":6,"He":7)",
       R"(elements:_exmpl_element_counts HAS "H":6 AND elements:_exmpl_element_counts HAS ALL "H":6, "He":7 AND elements:_exmpl_element_counts HAS ONLY "H":6 AND elements:_exmpl_element_counts HAS ANY "H":6, "He":7 AND elements:_exmpl_element_counts HAS ONLY "H":6, "He":7)"},
      {"_exmpl_element_counts HAS < 3 AND _exmpl_element_counts HAS ANY > 3, = 6, 4, != 8",
       "_exmpl_element_counts HAS < 3 AND _exmpl_element_counts HAS ANY > 3, 6, 4, != 8"},
      {R"(elements:_exmpl_element_counts:_exmpl_element_weights HAS ANY > 3:"He":>55.3 , = 6:>"Ti":<37.6 , 8:<"Ga":0)",
       R"(elements:_exmpl_element_counts:_exmpl_element_weights HAS ANY > 3:"He":> 55.3, 6:> "Ti":< 37.6, 8:< "Ga":0)"},
      {"list HAS < 3", "list HAS < 3"},
      {"list HAS ALL < 3, > 3", "list HAS ALL < 3, > 3"},
      {"list:list HAS >=2:<=5", "list:list HAS >= 2:<= 5"},
      {"chemical_formula_hill IS KNOWN AND NOT chemical_formula_anonymous IS UNKNOWN",
       "chemical_formula_hill IS KNOWN AND NOT chemical_formula_anonymous IS UNKNOWN"},
      {R"(NOT a > b OR c = 100 AND f = "C2 H6")", R"(NOT a > b OR c = 100 AND f = "C2 H6")"},
      {"a >= 0 AND NOT b < c OR c = 0", "a >= 0 AND NOT b < c OR c = 0"},
      {R"(references.target.doi="10.1234/1234")", R"(references.target.doi = "10.1234/1234")"},
      {R"(structures.target.elements HAS "Ta")", R"(structures.target.elements HAS "Ta")"},
      {R"(references.target.year=2024 AND chemical_formula_anonymous="A2B")",
       R"(references.target.year = 2024 AND chemical_formula_anonymous = "A2B")"},
      {R"(references.role:references.target.year HAS "_exmpl_primary":2024)",
       R"(references.role:references.target.year HAS "_exmpl_primary":2024)"},
      {R"(calculations.id HAS "calc-id-96")", R"(calculations.id HAS "calc-id-96")"},
      {R"(authors.lastname HAS "Schmidt")", R"(authors.lastname HAS "Schmidt")"},
      {R"(references.id HAS ANY "ref-1","ref-2")", R"(references.id HAS ANY "ref-1", "ref-2")"},
      {"((a >= 0) AND (NOT (b < c))) OR (c = 0)", "a >= 0 AND NOT b < c OR c = 0"},
      {R"((NOT (a > b)) OR ( (c = 100) AND (f = "C2 H6") ))",
       R"(NOT a > b OR c = 100 AND f = "C2 H6")"},
      {R"(elements:elements_ratios HAS ALL "Al":>0.3333, "Al":<0.3334)",
       R"(elements:elements_ratios HAS ALL "Al":> 0.3333, "Al":< 0.3334)"},
      {R"(elements HAS ALL "Si", "Al", "O" AND elements LENGTH 3)",
       R"(elements HAS ALL "Si", "Al", "O" AND elements LENGTH 3)"},
      {R"(chemical_formula_descriptive="(H2O)2 Na")",
       R"(chemical_formula_descriptive = "(H2O)2 Na")"},
      {R"(chemical_formula_descriptive CONTAINS "H2O")",
       R"(chemical_formula_descriptive CONTAINS "H2O")"},
      {"nelements>=2 AND nelements<=7", "nelements >= 2 AND nelements <= 7"},
      {"nframes>=100 AND nframes<=1000", "nframes >= 100 AND nframes <= 1000"},
      {"nperiodic_dimensions<=2", "nperiodic_dimensions <= 2"},
      {"NOT list HAS inverse", "NOT list HAS inverse"},
      {"is_yellow = TRUE", "is_yellow = TRUE"},
      {"NOT is_yellow", "NOT is_yellow"},
      {"identifier CONTAINS set", "identifier CONTAINS set"},
      {"NOT identifier IS KNOWN", "NOT identifier IS KNOWN"},
      // --- Filters of the specification's grammar test cases (Materials-Consortia/API).
      {R"(b="kva" AND (1<s OR NOT( x!=y AND z>0 ) ))",
       R"(b = "kva" AND (1 < s OR NOT (x != y AND z > 0)))"},
      {"aax <= +.1e8 OR c21 >= \"S\xc4\x85\xc5\xbe"
       "ininga \xc5\xbe\xc4\x85sis\" AND NOT ( x != \"Some \\\\ \\\"string\\\"\" )",
       "aax <= +.1e8 OR c21 >= \"S\xc4\x85\xc5\xbe"
       "ininga \xc5\xbe\xc4\x85sis\" AND NOT x != \"Some \\\\ \\\"string\\\"\""},
      {R"(aax <= +.1e8 OR c21 >= 10 AND NOT f = y OR NOT a >= b OR x = t OR ( NOT x != "Some string" OR a = b AND x > v AND NOT v < w))",
       R"(aax <= +.1e8 OR c21 >= 10 AND NOT f = y OR NOT a >= b OR x = t OR (NOT x != "Some string" OR a = b AND x > v AND NOT v < w))"},
      {"a>1 AND (b<10 OR c!=b OR x>100)", "a > 1 AND (b < 10 OR c != b OR x > 100)"},
      {"((NOT (a>b)) AND NOT ((x>0)))", "NOT a > b AND NOT x > 0"},
      {"band_gap > 1 AND cell_length_a < 5 AND cell_volume >= 10",
       "band_gap > 1 AND cell_length_a < 5 AND cell_volume >= 10"},
      // --- The specification's valid numbers.
      {"a = 12345", "a = 12345"},
      {"a = +12", "a = +12"},
      {"a = -34", "a = -34"},
      {"a = 1.2", "a = 1.2"},
      {"a = .2E7", "a = .2E7"},
      {"a = -.2E+7", "a = -.2E+7"},
      {"a = +10.01E-10", "a = +10.01E-10"},
      {"a = 6.03e23", "a = 6.03e23"},
      {"a = .1E1", "a = .1E1"},
      {"a = -.1e1", "a = -.1e1"},
      {"a = 1.e-12", "a = 1.e-12"},
      {"a = -.1e-12", "a = -.1e-12"},
      {"a = 1000000000.E1000000000", "a = 1000000000.E1000000000"},
      {"a = 1.", "a = 1."},
      {"a = .1", "a = .1"},
      {"a = 007", "a = 007"},
      {"a = -0", "a = -0"},
      {"a=1e5", "a = 1e5"},
      {"a = 123456789012345678901234567890.123456789012345678901234567890",
       "a = 123456789012345678901234567890.123456789012345678901234567890"},
      {"-1 < a", "-1 < a"},
      // --- Whitespace: optional between tokens, any of the six characters.
      {"  a = 1  ", "a = 1"},
      {"a\t=\n1", "a = 1"},
      {"\r\v\fa=1\r\n", "a = 1"},
      {"a=1ANDb=2", "a = 1 AND b = 2"},
      {"a=1ORb=2", "a = 1 OR b = 2"},
      {"NOTa", "NOT a"},
      {"NOT(a)", "NOT a"},
      {"a HASALL 1,2", "a HAS ALL 1, 2"},
      {"a ISKNOWN", "a IS KNOWN"},
      {"a STARTSWITH \"x\"", "a STARTS WITH \"x\""},
      {"a . b = 1", "a.b = 1"},
      {"a. b=1", "a.b = 1"},
      {"a .b=1", "a.b = 1"},
      {"a LENGTH>=3", "a LENGTH >= 3"},
      {"a:b HAS 1 : 2", "a:b HAS 1:2"},
      {"a : b HAS ONLY 1 : 2 , 3 : 4", "a:b HAS ONLY 1:2, 3:4"},
      // --- Precedence and parentheses.
      {"(a)", "a"},
      {"((((a = 1))))", "a = 1"},
      {"NOT (a AND b)", "NOT (a AND b)"},
      {"NOT (NOT a)", "NOT (NOT a)"},
      {"NOT (a OR b) AND c", "NOT (a OR b) AND c"},
      {"(a AND b) AND c", "(a AND b) AND c"},
      {"a AND (b AND c)", "a AND (b AND c)"},
      {"(a OR b) AND c", "(a OR b) AND c"},
      {"a OR (b OR c)", "a OR (b OR c)"},
      {"a OR (b AND c)", "a OR b AND c"},
      {"(a AND b) OR c", "a AND b OR c"},
      {"NOT a AND b", "NOT a AND b"},
      {"NOT (a) OR b", "NOT a OR b"},
      {"a OR b AND c OR d", "a OR b AND c OR d"},
      {"a AND b OR c AND d", "a AND b OR c AND d"},
      {"a AND (b OR c) AND d", "a AND (b OR c) AND d"},
      {"(NOT a) AND (NOT b)", "NOT a AND NOT b"},
      {"NOT ((a))", "NOT a"},
      // --- Keyword case: keywords are upper-case; lower-case words are property names.
      {"a = true", "a = true"},
      {"and = or", "and = or"},
      {"not", "not"},
      {"has HAS has", "has HAS has"},
      // --- Property names.
      {"a", "a"},
      {"_", "_"},
      {"_1 = 2", "_1 = 2"},
      {"a1.b2 = 1", "a1.b2 = 1"},
      {"a.b.c.d = 1", "a.b.c.d = 1"},
      {"_exmpl_x.y_z = 1", "_exmpl_x.y_z = 1"},
      {"a = b", "a = b"},
      {"a = b.c", "a = b.c"},
      // --- Strings and escapes.
      {R"(a = "A \"quote\"")", R"(a = "A \"quote\"")"},
      {R"(a = "back\\slash")", R"(a = "back\\slash")"},
      {R"(a = "\\")", R"(a = "\\")"},
      {R"(a = "\\\"")", R"(a = "\\\"")"},
      {R"(a = "")", R"(a = "")"},
      {R"(a = "!#$%&'()*+,-./:;<=>?@[]^`{|}~")", R"(a = "!#$%&'()*+,-./:;<=>?@[]^`{|}~")"},
      {"a = \"\xc3\xbc\xe6\x97\xa5\xf0\x9f\x98\x80\"",
       "a = \"\xc3\xbc\xe6\x97\xa5\xf0\x9f\x98\x80\""},
      {"a = \"tab\there\nnewline\"", "a = \"tab\there\nnewline\""},
      {R"(a = "AND OR NOT")", R"(a = "AND OR NOT")"},
      {R"F(a = "A double quote character (\", ASCII symbol 34 dec) MUST be prepended by a backslash (\\, ASCII symbol 92 dec) when it is a part of the value and not a delimiter; the backslash character \"\\\" itself MUST be preceded by another backslash, forming a double backslash: \\\\")F",
       R"F(a = "A double quote character (\", ASCII symbol 34 dec) MUST be prepended by a backslash (\\, ASCII symbol 92 dec) when it is a part of the value and not a delimiter; the backslash character \"\\\" itself MUST be preceded by another backslash, forming a double backslash: \\\\")F"},
      // --- Comparison operators, both orders.
      {"a != 1", "a != 1"},
      {"a<1", "a < 1"},
      {"a<=1", "a <= 1"},
      {"a>1", "a > 1"},
      {"a>=1", "a >= 1"},
      {"1 = a", "1 = a"},
      {R"("x" != a)", R"("x" != a)"},
      {R"("a" < "b")", R"("a" < "b")"},
      {R"("foo bar" = 1)", R"("foo bar" = 1)"},
      {R"("Si" = chemical_formula_hill)", R"("Si" = chemical_formula_hill)"},
      {"TRUE = a", "TRUE = a"},
      {"FALSE != a", "FALSE != a"},
      {"TRUE = FALSE", "TRUE = FALSE"},
      {"1 = TRUE", "1 = TRUE"},
      {"a = FALSE", "a = FALSE"},
      {"a >= b.c", "a >= b.c"},
      // --- Fuzzy string operators.
      {R"(a CONTAINS "x")", R"(a CONTAINS "x")"},
      {"a CONTAINS b", "a CONTAINS b"},
      {"a CONTAINS TRUE", "a CONTAINS TRUE"},
      {R"(a STARTS "x")", R"(a STARTS WITH "x")"},
      {R"(a ENDS "x")", R"(a ENDS WITH "x")"},
      {"a ENDS WITH 1", "a ENDS WITH 1"},
      // --- HAS and its operator forms.
      {"a HAS 1", "a HAS 1"},
      {"a HAS = 1", "a HAS 1"},
      {"a HAS != 1", "a HAS != 1"},
      {"a HAS <= 1", "a HAS <= 1"},
      {R"(a HAS > "x")", R"(a HAS > "x")"},
      {R"(a HAS CONTAINS "x")", R"(a HAS CONTAINS "x")"},
      {R"(a HAS STARTS "x")", R"(a HAS STARTS WITH "x")"},
      {R"(a HAS ENDS WITH "x")", R"(a HAS ENDS WITH "x")"},
      {"a HAS TRUE", "a HAS TRUE"},
      {"a HAS b.c", "a HAS b.c"},
      {"a HAS ALL 1", "a HAS ALL 1"},
      {"a HAS ALL 1,2,3", "a HAS ALL 1, 2, 3"},
      {R"(a HAS ANY "x", CONTAINS "y", STARTS WITH "z", ENDS "w")",
       R"(a HAS ANY "x", CONTAINS "y", STARTS WITH "z", ENDS WITH "w")"},
      {"a HAS ONLY 1, < 2", "a HAS ONLY 1, < 2"},
      {"NOT a HAS 1", "NOT a HAS 1"},
      // --- Correlated lists.
      {"a:b HAS 1:2", "a:b HAS 1:2"},
      {"a:b HAS 1:2:3", "a:b HAS 1:2:3"},
      {"a:b:c HAS ALL 1:2:3, 4:5:6", "a:b:c HAS ALL 1:2:3, 4:5:6"},
      {"a:b HAS ANY <1:>2", "a:b HAS ANY < 1:> 2"},
      {R"(a.x:b.y HAS "p":"q")", R"(a.x:b.y HAS "p":"q")"},
      {R"(a:b HAS CONTAINS "x":STARTS "y")", R"(a:b HAS CONTAINS "x":STARTS WITH "y")"},
      // --- IS KNOWN / IS UNKNOWN.
      {"a IS KNOWN", "a IS KNOWN"},
      {"a IS UNKNOWN", "a IS UNKNOWN"},
      {"a.b IS KNOWN", "a.b IS KNOWN"},
      {"NOT a IS KNOWN", "NOT a IS KNOWN"},
      // --- LENGTH.
      {"a LENGTH 3", "a LENGTH 3"},
      {"a LENGTH = 3", "a LENGTH 3"},
      {"a LENGTH >= 3", "a LENGTH >= 3"},
      {"a LENGTH < 3", "a LENGTH < 3"},
      {"a LENGTH != 3", "a LENGTH != 3"},
      {"a LENGTH b", "a LENGTH b"},
      {"a LENGTH TRUE", "a LENGTH TRUE"},
      {"a LENGTH < TRUE", "a LENGTH < TRUE"},
      {"a.b LENGTH > 1 AND c LENGTH 2", "a.b LENGTH > 1 AND c LENGTH 2"},
  };
  return cases;
}

// Texts that are not filters of the grammar, with the column of the first offending token.
const std::vector<InvalidCase>& invalid_cases() {
  static const std::vector<InvalidCase> cases = {
      // --- Structure.
      {"", 1},
      {"   ", 4},
      {"()", 2},
      {"(a", 3},
      {"a)", 2},
      {"a AND", 6},
      {"AND a", 1},
      {"OR a", 1},
      {"a OR OR b", 6},
      {"NOT", 4},
      {"NOT NOT a", 5},
      {"a NOT b", 3},
      {"a = 1 b = 2", 7},
      {"(a = 1", 7},
      {"a = 1)", 6},
      {"a = (1)", 5},
      {"a AND ()", 8},
      {"(nsites = 3 AND nelements = 3) = FALSE", 32},
      {"_exmpl_melting_point%3C300", 21},
      {"a = 1 # comment", 7},
      {std::string("a = 1\0", 6), 6},
      {"a = 1;", 6},
      // --- Keyword case.
      {"a = 1 and b = 2", 7},
      {"a = 1 And b = 2", 7},
      {"a Has 1", 3},
      {"a has 1", 3},
      {"a = True", 5},
      {"not a", 5},
      {"a = NULL", 5},
      {"a IS known", 6},
      {"a HAS all 1", 11},
      // --- Property names.
      {"BadLuck = 1", 1},
      {"0_kvak = 1", 2},
      {"a_B = 1", 3},
      {"\xc3\xa9 = 1", 1},
      {"a. = 1", 4},
      {"a.1 = 1", 2},
      {".a = 1", 1},
      {"a..b = 1", 3},
      {"a.B = 1", 3},
      {"a.b. = 1", 6},
      // --- The specification's invalid numbers (and others).
      {"a = 1.234D12", 10},
      {"a = .e1", 5},
      {"a = -.E1", 6},
      {"a = +.E2", 6},
      {"a = 1.23E+++", 9},
      {"a = +-123", 6},
      {"a = 1e", 6},
      {"a = 1.5.5", 8},
      {"a = - 1", 6},
      {"a = 1,000", 6},
      {"a = 0x10", 6},
      // --- Strings.
      {R"(a = "\n")", 7},
      {R"(a = "\u00e9")", 7},
      {R"(a = "unterminated)", 18},
      {"a = \"ends in a backslash\\", 26},
      {"a = \"\x01\"", 6},
      {"a = \"\x7f\"", 6},
      {"a = \"\xff\"", 6},
      {"a = \"\xc3\"", 6},
      {"a = \"\xed\xa0\x80\"", 6},
      {"a = \"\xc0\xaf\"", 6},
      {"a = \"\xf4\x90\x80\x80\"", 6},
      {"a = 'single'", 5},
      {R"(a = "x" "y")", 9},
      // --- Comparison operators.
      {"a < TRUE", 5},
      {"TRUE < a", 6},
      {"a ! = 1", 4},
      {"a =< 1", 4},
      {"a <> 1", 4},
      {"a == 1", 4},
      {"a = = 1", 5},
      {"1 CONTAINS a", 3},
      {"5", 2},
      {"TRUE", 5},
      {R"("x")", 4},
      {"a =", 4},
      {"= 1", 1},
      {"a !", 4},
      // --- Fuzzy string operators.
      {"a CONTAINS", 11},
      {"a STARTS WITH", 14},
      {"a STARTS", 9},
      {R"(a ENDS WITH WITH "x")", 13},
      {R"(a WITH "x")", 3},
      {R"(a CONTAINS WITH "x")", 12},
      // --- HAS.
      {"a HAS", 6},
      {"a HAS ALL", 10},
      {"a HAS ALL 1,", 13},
      {"a HAS ALL ,1", 11},
      {"a HAS 1, 2", 8},
      {"a HAS < TRUE", 9},
      {"a HAS 1:2", 8},
      {"a HAS ALL ALL 1", 11},
      {"a HAS ONLY", 11},
      {"a HAS ANY 1 2", 13},
      {"a HAS LENGTH 1", 7},
      // --- Correlated lists.
      {"a:b HAS 1", 10},
      {"a:b HAS ALL 1:2, 3", 19},
      {"a:b = 1", 5},
      {"a: HAS 1:2", 4},
      {"a:b HAS 1:2, 3:4", 12},
      {"a:b", 4},
      {"a:b LENGTH 1", 5},
      {"a:b HAS 1:", 11},
      {"1:2 HAS a", 2},
      // --- IS KNOWN / IS UNKNOWN.
      {"a IS", 5},
      {"a IS NOT KNOWN", 6},
      {"a IS TRUE", 6},
      {"a KNOWN", 3},
      // --- LENGTH.
      {"a LENGTH", 9},
      {"a LENGTH > ", 12},
      {"a LENGTH CONTAINS 1", 10},
      {"LENGTH a = 1", 1},
      {"a LENGTH 1, 2", 11},
  };
  return cases;
}

TEST(OptimadeFilterParser, TheTableHasAtLeast150Cases) {
  EXPECT_GE(valid_cases().size() + invalid_cases().size(), 150u);
}

// `c op p` is `p mirrored(op) c`: the orderings turn round, the rest stay; twice is the identity.
TEST(OptimadeOperator, MirroredSwapsTheSidesOfAnOrdering) {
  EXPECT_EQ(optimade::mirrored(Operator::kLt), Operator::kGt);
  EXPECT_EQ(optimade::mirrored(Operator::kLe), Operator::kGe);
  EXPECT_EQ(optimade::mirrored(Operator::kGt), Operator::kLt);
  EXPECT_EQ(optimade::mirrored(Operator::kGe), Operator::kLe);
  for (Operator op : {Operator::kEq, Operator::kNe, Operator::kContains, Operator::kStartsWith,
                      Operator::kEndsWith}) {
    EXPECT_EQ(optimade::mirrored(op), op) << optimade::operator_text(op);
  }
  for (Operator op : {Operator::kLt, Operator::kLe, Operator::kGt, Operator::kGe}) {
    EXPECT_EQ(optimade::mirrored(optimade::mirrored(op)), op) << optimade::operator_text(op);
  }
}

// Each comparison has the searcher's operator of the same meaning; the fuzzy operators have
// none. Mirroring commutes with the mapping (the searcher's kLt of `c > p` is the mirror's).
TEST(OptimadeOperator, CompareOpMapsTheComparisonsOnly) {
  EXPECT_EQ(optimade::compare_op(Operator::kEq), CompareOp::kEq);
  EXPECT_EQ(optimade::compare_op(Operator::kNe), CompareOp::kNe);
  EXPECT_EQ(optimade::compare_op(Operator::kLt), CompareOp::kLt);
  EXPECT_EQ(optimade::compare_op(Operator::kLe), CompareOp::kLe);
  EXPECT_EQ(optimade::compare_op(Operator::kGt), CompareOp::kGt);
  EXPECT_EQ(optimade::compare_op(Operator::kGe), CompareOp::kGe);
  for (Operator op : {Operator::kContains, Operator::kStartsWith, Operator::kEndsWith}) {
    EXPECT_FALSE(optimade::compare_op(op).has_value()) << optimade::operator_text(op);
  }
  EXPECT_EQ(optimade::compare_op(optimade::mirrored(Operator::kGt)), CompareOp::kLt);
  EXPECT_EQ(optimade::compare_op(optimade::mirrored(Operator::kGe)), CompareOp::kLe);
}

// Same-operator chains are spliced whatever the parentheses; another operator, or NOT,
// stays one operand.
TEST(OptimadeOperator, ChainedOperandsSpliceTheSameOperator) {
  auto texts = [](std::string_view filter) {
    OptimadeFilter f = parse_optimade_filter(filter);
    std::vector<std::string> out;
    for (const Expression* e : optimade::chained_operands(*f.root().get_if<Logical>())) {
      out.push_back(print_optimade_filter(*e));
    }
    return out;
  };
  using Texts = std::vector<std::string>;
  EXPECT_EQ(texts("(a = 1 AND b = 2) AND (c = 3 AND (d = 4 AND e = 5))"),
            (Texts{"a = 1", "b = 2", "c = 3", "d = 4", "e = 5"}));
  EXPECT_EQ(texts("a = 1 OR (b = 2 AND c = 3) OR (d = 4 OR e = 5)"),
            (Texts{"a = 1", "b = 2 AND c = 3", "d = 4", "e = 5"}));
  EXPECT_EQ(texts("NOT (a = 1 AND b = 2)"), (Texts{"a = 1 AND b = 2"}));
}

TEST(OptimadeFilterParser, ParsesEveryValidFilterToItsTree) {
  for (const ValidCase& c : valid_cases()) {
    SCOPED_TRACE(c.filter);
    try {
      OptimadeFilter filter = parse_optimade_filter(c.filter);
      EXPECT_EQ(filter.to_string(), c.canonical);
      // The canonical text is a filter of the same tree, and is its own canonical text.
      OptimadeFilter again = parse_optimade_filter(filter.to_string());
      EXPECT_EQ(again, filter);
      EXPECT_EQ(again.to_string(), c.canonical);
    } catch (const OptimadeFilterSyntaxError& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

TEST(OptimadeFilterParser, RejectsEveryInvalidFilterAtItsColumn) {
  for (const InvalidCase& c : invalid_cases()) {
    SCOPED_TRACE(c.filter);
    try {
      OptimadeFilter filter = parse_optimade_filter(c.filter);
      ADD_FAILURE() << "accepted as " << filter.to_string();
    } catch (const OptimadeFilterSyntaxError& e) {
      EXPECT_EQ(e.column(), c.column) << e.what();
      EXPECT_EQ(e.category(), "syntax");
      EXPECT_FALSE(e.expected().empty());
    }
  }
}

// The number lists the specification points to (Materials-Consortia/API, tests/inputs:
// numbers.lst, integers.lst, reals.lst and not-numbers.lst): each number is one number token,
// kept as written; no not-number is read as one number token.
TEST(OptimadeFilterParser, NumbersOfTheSpecificationsLists) {
  const std::vector<std::string> numbers = {
      "-1.23e12",
      "-1.23E12",
      "-.23e12",
      "-.23E12",
      "-111",
      "-12",
      "-11.1",
      "-1e1",
      "-1E1",
      "-1.23",
      "-1",
      "-1.",
      "-.1e1",
      "-.1E1",
      "-.23",
      "-.1",
      "-1.23e-12",
      "-1.23E-12",
      "-.23e-12",
      "-.23E-12",
      "-.0",
      ".0",
      "+.0",
      "0.23e-12",
      "0.23E-12",
      ".23e-12",
      "+.23e-12",
      ".23E-12",
      "+.23E-12",
      "1.e-12",
      "1.E-12",
      "+1.23e-12",
      "+1.23E-12",
      ".123",
      "0.23",
      ".23",
      "+.23",
      "1",
      "+1",
      "1.",
      ".1e1",
      ".1E1",
      "1.1",
      "1.2",
      "+1.23",
      "1.23",
      "1.234",
      "2",
      "+2.2",
      "3",
      "4",
      "5",
      "6",
      "1e1",
      "+1.e1",
      "1.e1",
      "1E1",
      "+1.E1",
      "1.E1",
      "11.1",
      "12",
      "21",
      "23",
      "+.23e2",
      "+.23E2",
      "33",
      "111",
      "+111",
      "113",
      "123",
      "2.34e4",
      "2.34E4",
      "+10000000",
      "+10000000.",
      "0.23e12",
      "0.23E12",
      ".23e12",
      ".23E12",
      "1.e12",
      "1.E12",
      "1.1e12",
      "1.1E12",
      "+1.23e12",
      "+1.23E12",
      "1.234e12",
      "1.234E12",
      "1000000000.e1000000000",
      "1000000000.E1000000000",
      "3456",
      "-3456",
      "+3456",
      "-0.314159E01",
      "+0.314159E01",
      "0.314159E01",
      "-0.314159E1",
      "-0.314159E+1",
      "+0.314159E1",
      "+0.314159E+1",
      "0.314159E1",
      "0.314159E+1",
      "-3.14159",
      "+3.14159",
      "3.14159",
      "+314159.E-00005",
      "+314159E-00005",
      "-.314159E01",
      "-31.4159E-01",
      ".314159E01",
      "+.314159E01",
      "+31.4159E-01",
      "31.4159E-01",
      "+314159.E-05",
      "+314159E-05",
      "-.314159E1",
      "-.314159E+1",
      "-31.4159E-1",
      ".314159E1",
      ".314159E+1",
      "+.314159E1",
      "+.314159E+1",
      "+31.4159E-1",
      "31.4159E-1",
      "+314159.E-5",
      "+314159E-5",
  };
  const std::vector<std::string> not_numbers = {
      "++1.23E-12(3)",
      "--11.1",
      "11.1A",
      "1A.X",
      "1.23E+++",
      "1,123(23)",
      "1...0",
      ".123.E12",
      "1.234E12(1.2)",
      "1.234D12((12)))",
      "1.234D12((12))",
      "1.234D12(+-12)",
      "+++",
      "---",
      ".",
      "...",
      "+",
      "+1E",
      "+1EE1",
      "--1E1",
      "-1-E1",
      "1.1E12(-1)",
      "?",
      "AAA",
      "(12)",
      "-.",
      "+.",
      ".E1",
      "-.E1",
      "+.E2",
      "-.1E(1)",
      "+2.2E(2)",
      "'1.1'",
      "\"2.34E4(3)\"",
  };
  for (const std::string& number : numbers) {
    SCOPED_TRACE(number);
    try {
      OptimadeFilter f = parse_optimade_filter("a = " + number);
      const Comparison* c = f.root().get_if<Comparison>();
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(c->right.kind(), Value::Kind::kNumber);
      EXPECT_EQ(c->right.text(), number);
      OptimadeFilter g = parse_optimade_filter(number + " < a");
      ASSERT_NE(g.root().get_if<Comparison>(), nullptr);
      EXPECT_EQ(g.root().get_if<Comparison>()->left.text(), number);
    } catch (const OptimadeFilterSyntaxError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  for (const std::string& not_number : not_numbers) {
    SCOPED_TRACE(not_number);
    try {
      OptimadeFilter f = parse_optimade_filter("a = " + not_number);
      // Only a quoted not-number is a filter, and then a string.
      const Comparison* c = f.root().get_if<Comparison>();
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(c->right.kind(), Value::Kind::kString);
    } catch (const OptimadeFilterSyntaxError&) {
    }
  }
}

TEST(OptimadeFilterParser, ErrorMessagesNameTheColumnAndWhatWasExpected) {
  try {
    parse_optimade_filter("a = 1 AND");
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_STREQ(e.what(),
                 "OPTIMADE filter syntax error at column 10: expected a comparison, NOT or '(', "
                 "found the end of the filter");
  }
  try {
    parse_optimade_filter("a = 1 and b = 2");
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_EQ(e.column(), 7);
    EXPECT_EQ(e.expected(), "AND, OR or the end of the filter");
    EXPECT_EQ(e.found(), "property name 'and'");
  }
  // After a property name, everything that may follow one is named.
  try {
    parse_optimade_filter("a has 1");
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_EQ(e.column(), 3);
    EXPECT_EQ(e.expected(),
              "an operator (=, !=, <, <=, >, >=), IS, CONTAINS, STARTS, ENDS, HAS, LENGTH, ':', "
              "AND, OR or the end of the filter after a property name");
  }
  try {
    parse_optimade_filter(R"(a = "\t")");
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_EQ(e.column(), 7);
    EXPECT_NE(e.expected().find(R"(the only escapes are \" and \\)"), std::string::npos);
    EXPECT_EQ(e.found(), "'t'");
  }
  // A huge token is cut in the message.
  std::string long_name(5000, 'x');
  try {
    parse_optimade_filter("a = 1 " + long_name);
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_LT(std::string(e.what()).size(), 300u);
  }
  // The error is a FilterTranslationError of category "syntax", code BadValue.
  try {
    parse_optimade_filter("(");
    FAIL();
  } catch (const FilterTranslationError& e) {
    EXPECT_EQ(e.category(), "syntax");
    EXPECT_EQ(e.error_code(), ErrorCode::kBadValue);
  }
}

TEST(OptimadeFilterParser, TreesHoldTheValuesAsWritten) {
  // Numbers keep their literal text; strings their unescaped value.
  OptimadeFilter f = parse_optimade_filter(R"(a.b >= -1000000000.E1000000000)");
  const Comparison* c = f.root().get_if<Comparison>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->left.kind(), Value::Kind::kProperty);
  EXPECT_EQ(c->left.property_name().names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c->op, Operator::kGe);
  EXPECT_EQ(c->right.kind(), Value::Kind::kNumber);
  EXPECT_EQ(c->right.text(), "-1000000000.E1000000000");

  f = parse_optimade_filter(R"("x\"y\\z" = a)");
  c = f.root().get_if<Comparison>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->left.kind(), Value::Kind::kString);
  EXPECT_EQ(c->left.text(), "x\"y\\z");
  EXPECT_TRUE(c->left.is_constant());
  EXPECT_FALSE(c->right.is_constant());

  f = parse_optimade_filter("TRUE != a");
  c = f.root().get_if<Comparison>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->left.kind(), Value::Kind::kBoolean);
  EXPECT_TRUE(c->left.boolean_value());
  EXPECT_EQ(c->op, Operator::kNe);

  // String and number of the same text are different values.
  EXPECT_FALSE(parse_optimade_filter(R"(a = "1")") == parse_optimade_filter("a = 1"));
  // Numbers written differently are different literals (the translation compares values).
  EXPECT_FALSE(parse_optimade_filter("a = 1.0") == parse_optimade_filter("a = 1"));
}

TEST(OptimadeFilterParser, PrecedenceMakesTheExpectedTree) {
  // NOT a > b OR c = 100 AND f = "C2 H6"  is  (NOT (a > b)) OR ((c = 100) AND (f = "C2 H6"))
  OptimadeFilter f = parse_optimade_filter(R"(NOT a > b OR c = 100 AND f = "C2 H6")");
  const Logical* top = f.root().get_if<Logical>();
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->op, Logical::Op::kOr);
  ASSERT_EQ(top->operands.size(), 2u);
  const Logical* left = top->operands[0].get_if<Logical>();
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->op, Logical::Op::kNot);
  ASSERT_EQ(left->operands.size(), 1u);
  EXPECT_NE(left->operands[0].get_if<Comparison>(), nullptr);
  const Logical* right = top->operands[1].get_if<Logical>();
  ASSERT_NE(right, nullptr);
  EXPECT_EQ(right->op, Logical::Op::kAnd);
  EXPECT_EQ(right->operands.size(), 2u);

  // The specification's fully braced readings are the same trees.
  EXPECT_EQ(f, parse_optimade_filter(R"((NOT (a > b)) OR ( (c = 100) AND (f = "C2 H6") ))"));
  EXPECT_EQ(parse_optimade_filter("a >= 0 AND NOT b < c OR c = 0"),
            parse_optimade_filter("((a >= 0) AND (NOT (b < c))) OR (c = 0)"));

  // A chain is one node; parentheses make their own.
  OptimadeFilter chain = parse_optimade_filter("a AND b AND c");
  ASSERT_NE(chain.root().get_if<Logical>(), nullptr);
  EXPECT_EQ(chain.root().get_if<Logical>()->operands.size(), 3u);
  OptimadeFilter grouped = parse_optimade_filter("(a AND b) AND c");
  const Logical* nested = grouped.root().get_if<Logical>();
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->operands.size(), 2u);
  EXPECT_FALSE(parse_optimade_filter("(a AND b) AND c") == parse_optimade_filter("a AND b AND c"));
  // Redundant parentheses leave no trace.
  EXPECT_EQ(parse_optimade_filter("((a)) OR (b)"), parse_optimade_filter("a OR b"));
}

TEST(OptimadeFilterParser, TreesOfTheListAndUnaryForms) {
  OptimadeFilter f = parse_optimade_filter(R"(elements:counts HAS ANY "H":> 6, "He":7)");
  const Has* has = f.root().get_if<Has>();
  ASSERT_NE(has, nullptr);
  EXPECT_EQ(has->quantifier, Has::Quantifier::kAny);
  ASSERT_EQ(has->properties.size(), 2u);
  EXPECT_EQ(has->properties[1].names, std::vector<std::string>{"counts"});
  ASSERT_EQ(has->tuples.size(), 2u);
  ASSERT_EQ(has->tuples[0].size(), 2u);
  EXPECT_EQ(has->tuples[0][0].op, Operator::kEq);
  EXPECT_EQ(has->tuples[0][0].value.text(), "H");
  EXPECT_EQ(has->tuples[0][1].op, Operator::kGt);
  EXPECT_EQ(has->tuples[0][1].value.text(), "6");

  f = parse_optimade_filter(R"(a HAS STARTS "x")");
  has = f.root().get_if<Has>();
  ASSERT_NE(has, nullptr);
  EXPECT_EQ(has->quantifier, Has::Quantifier::kOne);
  ASSERT_EQ(has->tuples.size(), 1u);
  ASSERT_EQ(has->tuples[0].size(), 1u);
  EXPECT_EQ(has->tuples[0][0].op, Operator::kStartsWith);

  f = parse_optimade_filter("a IS UNKNOWN");
  ASSERT_NE(f.root().get_if<Known>(), nullptr);
  EXPECT_FALSE(f.root().get_if<Known>()->known);

  f = parse_optimade_filter("a LENGTH <= 4");
  const Length* length = f.root().get_if<Length>();
  ASSERT_NE(length, nullptr);
  EXPECT_EQ(length->op, Operator::kLe);
  EXPECT_EQ(length->value.text(), "4");

  f = parse_optimade_filter("_exmpl_is_primitive");
  ASSERT_NE(f.root().get_if<BareProperty>(), nullptr);
  EXPECT_EQ(f.root().get_if<BareProperty>()->property.names,
            std::vector<std::string>{"_exmpl_is_primitive"});
}

TEST(OptimadeFilterParser, NestingIsBoundedWithoutExhaustingTheStack) {
  auto nested = [](int depth, const std::string& prefix) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += prefix + "(";
    s += "a = 1";
    for (int i = 0; i < depth; ++i) s += ")";
    return s;
  };
  EXPECT_EQ(parse_optimade_filter(nested(kMaxOptimadeFilterDepth, "")).to_string(), "a = 1");
  EXPECT_NO_THROW(parse_optimade_filter(nested(kMaxOptimadeFilterDepth, "NOT ")));
  try {
    parse_optimade_filter(nested(kMaxOptimadeFilterDepth + 1, ""));
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_EQ(e.column(), kMaxOptimadeFilterDepth + 1);
    EXPECT_NE(e.expected().find("nested parentheses"), std::string::npos);
  }
  // As many parentheses as the length limit allows: refused at the limit, no deep recursion.
  try {
    parse_optimade_filter(std::string(kMaxOptimadeFilterBytes, '('));
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_EQ(e.column(), kMaxOptimadeFilterDepth + 1);
  }
}

TEST(OptimadeFilterParser, LengthIsBounded) {
  // The longest accepted filter: a long chain of ORs (parsed without recursion).
  std::string filter = "a = 1";
  while (filter.size() + 9 <= kMaxOptimadeFilterBytes) filter += " OR a = 1";
  filter.resize(kMaxOptimadeFilterBytes, ' ');
  OptimadeFilter parsed = parse_optimade_filter(filter);
  EXPECT_EQ(parsed.root().get_if<Logical>()->operands.size(),
            (kMaxOptimadeFilterBytes - 5) / 9 + 1);
  EXPECT_EQ(parse_optimade_filter(parsed.to_string()), parsed);
  try {
    parse_optimade_filter(filter + " ");
    FAIL();
  } catch (const OptimadeFilterSyntaxError& e) {
    EXPECT_EQ(e.column(), static_cast<int64_t>(kMaxOptimadeFilterBytes) + 1);
  }
  // A string as long as the limit allows.
  std::string string_filter = "a = \"" + std::string(kMaxOptimadeFilterBytes - 6, 'x') + "\"";
  EXPECT_EQ(parse_optimade_filter(string_filter).to_string(), string_filter);
}

// Robustness on untrusted input: mutations of the valid filters (bytes inserted, deleted,
// replaced, ranges duplicated or cut, filters spliced) either parse — and then print to a text
// that parses to the same tree — or fail with a syntax error whose column lies within the text
// (or one past it). Anything else (another exception, a crash) fails. Seeded and bounded.
TEST(OptimadeFilterParser, RandomMutationsNeverCrashAndRoundTrip) {
  std::mt19937 rng(20261205);
  std::vector<std::string> seeds;
  for (const ValidCase& c : valid_cases()) seeds.push_back(c.filter);
  for (const InvalidCase& c : invalid_cases()) seeds.push_back(c.filter);
  const std::vector<std::string> fragments = {
      " ",     "(",     ")",       "\"",     "\\",       ".",      ",",    ":",    "=",
      "!=",    "<",     ">=",      "+",      "-",        "e",      "E",    "1",    ".5",
      "a",     "_",     "AND",     "OR",     "NOT",      "HAS",    "ALL",  "ANY",  "ONLY",
      "IS",    "KNOWN", "UNKNOWN", "LENGTH", "CONTAINS", "STARTS", "ENDS", "WITH", "TRUE",
      "FALSE", "\xc3",  "\xa9",    "\x00",   "\n",       "\x7f"};
  auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  int parsed = 0;
  int rejected = 0;
  constexpr int kIterations = 60000;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    std::string s = seeds[pick(seeds.size())];
    int mutations = 1 + static_cast<int>(pick(4));
    for (int m = 0; m < mutations; ++m) {
      std::size_t at = pick(s.size() + 1);
      switch (pick(6)) {
        case 0:  // insert a fragment
          s.insert(at, fragments[pick(fragments.size())]);
          break;
        case 1:  // delete a range
          if (!s.empty() && at < s.size())
            s.erase(at, 1 + pick(std::min<std::size_t>(8, s.size() - at)));
          break;
        case 2:  // replace a byte by any byte
          if (at < s.size()) s[at] = static_cast<char>(pick(256));
          break;
        case 3:  // duplicate a range
          if (at < s.size()) s.insert(at, s.substr(at, 1 + pick(16)));
          break;
        case 4:  // cut the end
          s.resize(at);
          break;
        default:  // splice with another filter
          s = s.substr(0, at) + seeds[pick(seeds.size())].substr(0, pick(40));
          break;
      }
    }
    try {
      OptimadeFilter filter = parse_optimade_filter(s);
      std::string printed = filter.to_string();
      OptimadeFilter again = parse_optimade_filter(printed);
      ASSERT_EQ(again, filter) << "input: " << s << "\nprinted: " << printed;
      ASSERT_EQ(again.to_string(), printed);
      ++parsed;
    } catch (const OptimadeFilterSyntaxError& e) {
      ASSERT_GE(e.column(), 1) << s;
      ASSERT_LE(e.column(), static_cast<int64_t>(s.size()) + 1) << s;
      ++rejected;
    }
  }
  // The mutations explore both sides.
  EXPECT_GT(parsed, kIterations / 20);
  EXPECT_GT(rejected, kIterations / 20);
}

}  // namespace
}  // namespace mongostore::records
