// The value of one column in one row, as a column getter writes it and filters, stats and the output
// formats read it. One Cell serves every row of a query: clear() keeps the memory, so once the buffers have
// grown a row costs no allocation. A query thread's own: a Cell is never shared between threads.
//
//   cell.clear();
//   column.get(view, row, cell);          // e.g. cell.set_string(host.name) or a list:
//   cell.start_list(); cell.add("web"); cell.add("db");
//   cell.start_list(); cell.start_tuple(); cell.add("ping"); cell.add(0); cell.end_tuple();  // list of lists
//   cell.start_dict(); cell.add_pair("OS", "linux");                                          // custom vars
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::livestatus {

class Cell {
 public:
  enum class Kind : std::uint8_t { none, integer, floating, string, list, dict };

  // One element of a list: an integer or a string (strings are copied into the cell).
  struct Atom {
    bool is_int = false;
    std::int64_t value = 0;    // is_int
    std::uint32_t offset = 0;  // !is_int: the text in the cell's buffer
    std::uint32_t size = 0;
  };
  // One entry of a list: a single atom, or a tuple of atoms (services_with_state: name, state, checked);
  // of a dict: two atoms, key and value.
  struct Item {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    bool tuple = false;
  };

  void clear() {
    kind_ = Kind::none;
    text_.clear();
    atoms_.clear();
    items_.clear();
  }

  // Scalars. set_string() keeps the view: `s` must stay valid as long as the View the query reads (model
  // and snapshot memory do). A computed string goes through owned_string().
  void set_int(std::int64_t v) {
    kind_ = Kind::integer;
    int_ = v;
  }
  void set_float(double v) {
    kind_ = Kind::floating;
    float_ = v;
  }
  void set_string(std::string_view s) {
    kind_ = Kind::string;
    string_ = s;
    owned_ = false;
  }
  // An empty buffer to build the string in; the cell's value is the buffer's contents when read.
  std::string& owned_string() {
    kind_ = Kind::string;
    owned_ = true;
    text_.clear();
    return text_;
  }

  // Lists and dicts: start, then add entries.
  void start_list() { kind_ = Kind::list; }
  void start_dict() { kind_ = Kind::dict; }
  void add(std::string_view s) { add_item(atom(s)); }
  void add(std::int64_t v) { add_item(Atom{.is_int = true, .value = v}); }
  void add(int v) { add(static_cast<std::int64_t>(v)); }
  void start_tuple() {
    items_.push_back(Item{.first = static_cast<std::uint32_t>(atoms_.size()), .count = 0, .tuple = true});
    in_tuple_ = true;
  }
  void end_tuple() { in_tuple_ = false; }
  void add_pair(std::string_view key, std::string_view value) {
    items_.push_back(Item{.first = static_cast<std::uint32_t>(atoms_.size()), .count = 2, .tuple = true});
    atoms_.push_back(atom(key));
    atoms_.push_back(atom(value));
  }

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] std::int64_t as_int() const { return int_; }
  [[nodiscard]] double as_float() const { return float_; }
  [[nodiscard]] std::string_view as_string() const { return owned_ ? std::string_view(text_) : string_; }
  [[nodiscard]] std::span<const Item> items() const { return items_; }
  [[nodiscard]] std::span<const Atom> atoms_of(const Item& item) const {
    return std::span<const Atom>(atoms_).subspan(item.first, item.count);
  }
  [[nodiscard]] std::string_view text_of(const Atom& a) const {
    return std::string_view(text_).substr(a.offset, a.size);
  }

 private:
  Atom atom(std::string_view s) {
    Atom a{.is_int = false,
           .value = 0,
           .offset = static_cast<std::uint32_t>(text_.size()),
           .size = static_cast<std::uint32_t>(s.size())};
    text_.append(s);
    return a;
  }
  void add_item(Atom a) {
    if (in_tuple_ && !items_.empty()) {
      ++items_.back().count;
    } else {
      items_.push_back(Item{.first = static_cast<std::uint32_t>(atoms_.size()), .count = 1, .tuple = false});
    }
    atoms_.push_back(a);
  }

  Kind kind_ = Kind::none;
  bool owned_ = false;
  bool in_tuple_ = false;
  std::int64_t int_ = 0;
  double float_ = 0;
  std::string_view string_;
  std::string text_;  // owned string, or the text of list atoms
  std::vector<Atom> atoms_;
  std::vector<Item> items_;
};

}  // namespace vedette::livestatus
