// The regex compiler: a recursive-descent parser (its depth bounded: Parser::kMaxNesting) into a small tree, then the tree into
// instructions for the backtracking machine (regex_program.h). See regex.h for the
// supported constructs.
#include "tokenizer/regex_program.h"

#include <algorithm>

#include "io/json_excerpt.h"

namespace tfp {

using namespace regex_detail;

namespace {

struct Node {
  enum Kind { Empty, Char, Class, Any, Concat, Alt, Repeat, Look, Bol, Eol, Begin, End } kind = Empty;
  char32_t ch = 0;
  bool ci = false, lazy = false, negate = false;
  int cls = -1, min = 0, max = 0;  // max -1: unbounded
  std::vector<Node> kids;
};

Node node_of(Node::Kind k) {
  Node n;
  n.kind = k;
  return n;
}

bool nullable(const Node& n) {
  switch (n.kind) {
    case Node::Char: case Node::Class: case Node::Any: return false;
    case Node::Concat:
      return std::all_of(n.kids.begin(), n.kids.end(), nullable);
    case Node::Alt:
      return std::any_of(n.kids.begin(), n.kids.end(), nullable);
    case Node::Repeat: return n.min == 0 || nullable(n.kids[0]);
    default: return true;
  }
}


class Parser {
 public:
  Parser(Regex::Program& prog, std::u32string pat) : prog_(prog), p_(std::move(pat)) {}

  Node parse() {
    bool ci = false;
    Node n = alternation(ci);
    if (i_ < p_.size()) error("unbalanced )");
    return n;
  }

 private:
  [[noreturn]] void unsupported(const std::string& what) const {
    TFP_FAIL("regex /", io::text_excerpt(prog_.pattern), "/: ", what, " at position ", i_, " is not supported");
  }
  [[noreturn]] void error(const std::string& what) const {
    TFP_FAIL("regex /", io::text_excerpt(prog_.pattern), "/: ", what, " at position ", i_);
  }

  // Groups and classes inside each other, and quantifiers on one atom: the parser recurses
  // (and the tree nests) once per level, so a pattern from a tokenizer.json cannot take the
  // stack with 100,000 "(" (issue 32). As deep as io/json_depth.h lets JSON nest.
  static constexpr int kMaxNesting = 128;
  int nesting_ = 0;
  struct Nest {
    Parser& p;
    explicit Nest(Parser& q) : p(q) {
      if (++p.nesting_ > kMaxNesting) p.unsupported("groups and classes nested more than 128 deep");
    }
    ~Nest() { --p.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };
  bool more() const { return i_ < p_.size(); }
  char32_t peek(size_t k = 0) const { return i_ + k < p_.size() ? p_[i_ + k] : 0; }
  bool eat(char32_t c) {
    if (peek() != c || !more()) return false;
    ++i_;
    return true;
  }

  Node alternation(bool& ci) {
    Node alt = node_of(Node::Alt);
    alt.kids.push_back(sequence(ci));
    while (eat(U'|')) alt.kids.push_back(sequence(ci));
    return alt.kids.size() == 1 ? std::move(alt.kids[0]) : alt;
  }

  Node sequence(bool& ci) {
    Node seq = node_of(Node::Concat);
    while (more() && peek() != U'|' && peek() != U')') {
      if (peek() == U'(' && peek(1) == U'?' && (peek(2) == U'i' || peek(2) == U'-') &&
          (peek(3) == U')' || (peek(2) == U'-' && peek(3) == U'i' && peek(4) == U')'))) {
        ci = peek(2) == U'i';  // inline flag: to the end of the enclosing group
        i_ += ci ? 4 : 5;
        continue;
      }
      Node atom_node = atom(ci);
      seq.kids.push_back(quantified(std::move(atom_node)));
    }
    return seq.kids.size() == 1 ? std::move(seq.kids[0]) : seq;
  }

  Node quantified(Node a) {
    for (int stacked = 0;; ++stacked) {
      if (stacked > kMaxNesting) unsupported("more than 128 quantifiers on one part");
      int mn, mx;
      const size_t at = i_;
      if (eat(U'*')) mn = 0, mx = -1;
      else if (eat(U'+')) mn = 1, mx = -1;
      else if (eat(U'?')) mn = 0, mx = 1;
      else if (peek() == U'{' && counted(mn, mx)) {}
      else return a;
      if (a.kind == Node::Look || a.kind == Node::Bol || a.kind == Node::Eol) {
        i_ = at;
        unsupported("a quantifier on an assertion");
      }
      Node r = node_of(Node::Repeat);
      r.min = mn, r.max = mx;
      if (eat(U'?')) r.lazy = true;
      else if (peek() == U'+') unsupported("a possessive quantifier");
      if (mx != 1 && nullable(a)) unsupported("a repeated part that can match the empty string");
      r.kids.push_back(std::move(a));
      a = std::move(r);
    }
  }

  // {n} {n,} {n,m}; anything else (e.g. "{" alone) is a literal, as in Oniguruma.
  bool counted(int& mn, int& mx) {
    size_t j = i_ + 1;
    auto number = [&](int& v) {
      const size_t s = j;
      v = 0;
      while (j < p_.size() && p_[j] >= U'0' && p_[j] <= U'9' && v < 100000) v = v * 10 + static_cast<int>(p_[j++] - U'0');
      return j > s;
    };
    if (!number(mn)) return false;
    mx = mn;
    if (j < p_.size() && p_[j] == U',') {
      ++j;
      if (!number(mx)) mx = -1;
    }
    if (j >= p_.size() || p_[j] != U'}') return false;
    if (mx != -1 && mx < mn) error("a {n,m} with m < n");
    if (mn > 1000 || mx > 1000) unsupported("a repeat count above 1000");
    i_ = j + 1;
    return true;
  }

  Node atom(bool ci) {
    const char32_t c = p_[i_++];
    switch (c) {
      case U'(': return group(ci);
      case U'[': return class_atom(ci);
      case U'.': return node_of(Node::Any);
      case U'^': return node_of(Node::Bol);
      case U'$': return node_of(Node::Eol);
      case U'*': case U'+': case U'?': --i_; error("a quantifier with nothing before it");
      case U'\\': return escape(ci);
      default: return literal(c, ci);
    }
  }

  Node literal(char32_t c, bool ci) {
    Node n = node_of(Node::Char);
    n.ci = ci;
    n.ch = ci ? fold(c) : c;
    return n;
  }

  Node group(bool outer_ci) {
    const Nest nest(*this);
    bool ci = outer_ci;
    Node look;
    bool is_look = false;
    if (eat(U'?')) {
      if (eat(U':')) {
      } else if (peek() == U'i' && peek(1) == U':') {
        i_ += 2, ci = true;
      } else if (peek() == U'-' && peek(1) == U'i' && peek(2) == U':') {
        i_ += 3, ci = false;
      } else if (peek() == U'=' || peek() == U'!') {
        is_look = true;
        look.kind = Node::Look;
        look.negate = p_[i_++] == U'!';
      } else if (peek() == U'<' && (peek(1) == U'=' || peek(1) == U'!')) {
        unsupported("lookbehind (?<");
      } else if (peek() == U'<' || peek() == U'P' || peek() == U'\'') {
        unsupported("a named group");
      } else if (peek() == U'>') {
        unsupported("an atomic group (?>");
      } else {
        unsupported(std::string("the group flag (?") + static_cast<char>(peek() < 0x80 ? peek() : '?'));
      }
    }
    Node inner = alternation(ci);
    if (!eat(U')')) error("missing )");
    if (!is_look) return inner;
    look.kids.push_back(std::move(inner));
    return look;
  }

  Node class_atom(bool ci) {
    Node n = node_of(Node::Class);
    n.cls = parse_class(ci);
    return n;
  }

  // After the opening '['. Returns the class index.
  int parse_class(bool ci) {
    const Nest nest(*this);
    CharClass k;
    k.ci = ci;
    if (eat(U'^')) k.negated = true;
    bool first = true;
    for (;;) {
      if (!more()) error("missing ]");
      if (peek() == U']' && !first) {
        ++i_;
        break;
      }
      first = false;
      if (peek() == U'&' && peek(1) == U'&') unsupported("class intersection &&");
      if (peek() == U'[') {
        if (peek(1) == U':') unsupported("a POSIX bracket [:name:]");
        ++i_;
        ClassItem it;
        it.kind = ClassItem::Nested;
        it.nested = parse_class(ci);
        k.items.push_back(it);
        continue;
      }
      ClassItem it;
      char32_t lo;
      if (eat(U'\\')) {
        if (class_escape(it)) {
          k.items.push_back(it);
          continue;
        }
        lo = it.lo;
      } else {
        lo = p_[i_++];
      }
      char32_t hi = lo;
      if (peek() == U'-' && peek(1) != U']' && i_ + 1 < p_.size()) {
        ++i_;
        if (eat(U'\\')) {
          ClassItem end;
          if (class_escape(end)) error("a range ending in a class escape");
          hi = end.lo;
        } else {
          hi = p_[i_++];
        }
        if (hi < lo) error("a reversed range");
      }
      it.kind = ClassItem::Range, it.lo = lo, it.hi = hi;
      k.items.push_back(it);
    }
    prog_.classes.push_back(std::move(k));
    const int index = static_cast<int>(prog_.classes.size()) - 1;
    CharClass& done = prog_.classes.back();
    for (char32_t c = 0; c < 128; ++c) {
      const bool in = prog_.raw_has(done, c) || (ci && prog_.raw_has(done, fold(c))) ||
                      (ci && c >= 'a' && c <= 'z' && prog_.raw_has(done, c - 32));
      prog_.classes[static_cast<size_t>(index)].ascii[c] = in;
    }
    return index;
  }

  // After a backslash inside or outside a class. A class-like escape fills `it` and
  // returns true; a single character returns false with it.lo set.
  bool class_escape(ClassItem& it) {
    if (!more()) error("a trailing backslash");
    const char32_t c = p_[i_++];
    switch (c) {
      case U's': case U'S': it.kind = ClassItem::Space; it.negated = c == U'S'; return true;
      case U'd': case U'D': it.kind = ClassItem::Digit; it.negated = c == U'D'; return true;
      case U'w': case U'W': it.kind = ClassItem::Word; it.negated = c == U'W'; return true;
      case U'p': case U'P': {
        it.kind = ClassItem::Category;
        it.negated = c == U'P';
        std::string name;
        if (eat(U'{')) {
          if (eat(U'^')) it.negated = !it.negated;
          while (more() && peek() != U'}') name.push_back(static_cast<char>(p_[i_++] & 0x7F));
          if (!eat(U'}')) error("missing } after \\p{");
        } else if (more()) {
          name.push_back(static_cast<char>(p_[i_++] & 0x7F));
        }
        it.category = category_name(name);
        return true;
      }
      case U't': it.lo = U'\t'; return false;
      case U'n': it.lo = U'\n'; return false;
      case U'r': it.lo = U'\r'; return false;
      case U'f': it.lo = U'\f'; return false;
      case U'v': it.lo = U'\v'; return false;
      case U'a': it.lo = 7; return false;
      case U'e': it.lo = 27; return false;
      case U'0': it.lo = 0; return false;
      case U'x': case U'u': it.lo = hex_escape(c); return false;
      default:
        if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || (c >= U'1' && c <= U'9')) {
          --i_;
          unsupported(std::string("the escape \\") + static_cast<char>(c));
        }
        it.lo = c;  // escaped punctuation or any other character: itself
        return false;
    }
  }

  char32_t hex_escape(char32_t kind) {
    auto digit = [&](char32_t h) -> int {
      if (h >= U'0' && h <= U'9') return static_cast<int>(h - U'0');
      if (h >= U'a' && h <= U'f') return static_cast<int>(h - U'a' + 10);
      if (h >= U'A' && h <= U'F') return static_cast<int>(h - U'A' + 10);
      return -1;
    };
    char32_t v = 0;
    const bool braced = kind == U'x' && eat(U'{');
    const int count = braced ? 8 : kind == U'x' ? 2 : 4;
    int n = 0;
    while (n < count && more() && digit(peek()) >= 0) v = v * 16 + static_cast<char32_t>(digit(p_[i_++])), ++n;
    if (n == 0 || (!braced && n != count) || (braced && !eat(U'}'))) error("a malformed hex escape");
    if (v > 0x10FFFF) error("a code point above U+10FFFF");
    return v;
  }

  std::string category_name(const std::string& name) {
    static const std::pair<const char*, const char*> long_names[] = {
        {"Letter", "L"}, {"Mark", "M"}, {"Number", "N"}, {"Punctuation", "P"},
        {"Symbol", "S"}, {"Separator", "Z"}, {"Other", "C"}};
    for (const auto& [l, s] : long_names)
      if (name == l) return s;
    static const char* const known = "L M N P S Z C Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po "
                                     "Sm Sc Sk So Zs Zl Zp Cc Cf Cs Co Cn ";
    if (!name.empty() && std::string_view(known).find(name + " ") != std::string_view::npos &&
        (name.size() == 1 || name.size() == 2))
      return name;
    unsupported("the property \\p{" + name + "} (only general categories are)");
  }

  Node escape(bool ci) {
    if (!more()) error("a trailing backslash");
    switch (peek()) {
      case U'A': ++i_; return node_of(Node::Begin);
      case U'z': ++i_; return node_of(Node::End);
      case U'b': unsupported("the word boundary \\b");
      case U'B': unsupported("\\B");
      case U'G': unsupported("\\G");
      case U'K': unsupported("\\K");
      case U'X': unsupported("\\X");
      case U'R': unsupported("\\R");
      case U'Z': unsupported("\\Z");
      default: break;
    }
    if (peek() >= U'1' && peek() <= U'9') unsupported("a backreference");
    ClassItem it;
    if (class_escape(it)) {
      CharClass k;
      k.ci = ci;
      k.items.push_back(it);
      for (char32_t c = 0; c < 128; ++c) k.ascii[c] = prog_.raw_has(k, c);
      prog_.classes.push_back(std::move(k));
      Node n = node_of(Node::Class);
      n.cls = static_cast<int>(prog_.classes.size()) - 1;
      return n;
    }
    return literal(it.lo, ci);
  }

  Regex::Program& prog_;
  std::u32string p_;
  size_t i_ = 0;
};

class Compiler {
 public:
  explicit Compiler(std::vector<Inst>& out) : out_(out) {}

  void emit(const Node& n) {
    switch (n.kind) {
      case Node::Empty: break;
      case Node::Char: out_.push_back({kChar, n.ci, n.ch}); break;
      case Node::Class: out_.push_back({kClass, false, 0, n.cls}); break;
      case Node::Any: out_.push_back({kAny}); break;
      case Node::Bol: out_.push_back({kBol}); break;
      case Node::Eol: out_.push_back({kEol}); break;
      case Node::Begin: out_.push_back({kBegin}); break;
      case Node::End: out_.push_back({kEnd}); break;
      case Node::Concat:
        for (const Node& k : n.kids) emit(k);
        break;
      case Node::Alt: {
        std::vector<size_t> jumps;
        for (size_t i = 0; i < n.kids.size(); ++i) {
          size_t split = 0;
          if (i + 1 < n.kids.size()) {
            split = here();
            out_.push_back({kSplit, false, 0, here() + 1, 0});
          }
          emit(n.kids[i]);
          if (i + 1 < n.kids.size()) {
            jumps.push_back(static_cast<size_t>(here()));
            out_.push_back({kJmp});
            out_[split].y = here();
          }
        }
        for (size_t j : jumps) out_[j].x = here();
        break;
      }
      case Node::Repeat: {
        for (int i = 0; i < n.min; ++i) emit(n.kids[0]);
        if (n.max == -1) {  // L: split body, out; body; jmp L; out:
          const int32_t loop = here();
          out_.push_back({kSplit});
          emit(n.kids[0]);
          out_.push_back({kJmp, false, 0, loop});
          set_split(static_cast<size_t>(loop), loop + 1, here(), n.lazy);
        } else {
          std::vector<size_t> splits;
          for (int i = n.min; i < n.max; ++i) {
            splits.push_back(static_cast<size_t>(here()));
            out_.push_back({kSplit});
            emit(n.kids[0]);
          }
          for (size_t s : splits) set_split(s, static_cast<int32_t>(s) + 1, here(), n.lazy);
        }
        break;
      }
      case Node::Look: {  // look(sub) ; jmp after ; sub... ; match ; after:
        const size_t look = static_cast<size_t>(here());
        out_.push_back({kLook, n.negate, 0, here() + 2});
        out_.push_back({kJmp});
        emit(n.kids[0]);
        out_.push_back({kMatch});
        out_[look + 1].x = here();
        break;
      }
    }
  }

 private:
  int32_t here() const { return static_cast<int32_t>(out_.size()); }
  void set_split(size_t at, int32_t body, int32_t after, bool lazy) {
    out_[at].x = lazy ? after : body;
    out_[at].y = lazy ? body : after;
  }
  std::vector<Inst>& out_;
};


}  // namespace

void compile_regex(Regex::Program& prog, std::u32string pattern) {
  Parser parser(prog, std::move(pattern));
  const Node root = parser.parse();
  Compiler(prog.insts).emit(root);
  prog.insts.push_back({kMatch});
}

}  // namespace tfp
