#include "config/object_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace vedette::config {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view without_cr(std::string_view s) {
  return s.ends_with('\r') ? s.substr(0, s.size() - 1) : s;
}

// Where the first blank (space or tab) is, or npos. string_view::find_first_of() calls memchr() on the set
// for every character: that was the largest single cost of reading (perf).
std::size_t first_blank(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == ' ' || s[i] == '\t') return i;
  return std::string_view::npos;
}

std::string_view trim_front(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

bool is_upper(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// Kernel filesystems whose entries are not configuration: walking them never ends (/proc links back to /)
// or reads files that are not files.
bool is_pseudo_filesystem(decltype(statfs::f_type) type) {
  switch (type) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEVPTS_SUPER_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case BPF_FS_MAGIC:
    case PSTOREFS_MAGIC:
    case EFIVARFS_MAGIC:
      return true;
    default:
      return false;
  }
}

bool accepts_custom_variables(ObjectType t) {
  return t == ObjectType::host || t == ObjectType::service || t == ObjectType::contact;
}

}  // namespace

void ObjectReader::read_file(const std::string& path, SourcePos from) {
  if (open_files_.size() >= k_max_include_depth) {
    diags_.error(fmt::format("includes nested deeper than {} levels at '{}'", k_max_include_depth, path),
                 from, PosKind::line);
    return;
  }
  MappedFile file;
  if (!file.open(path)) {
    diags_.error(fmt::format("Cannot open config file '{}' for reading: {}", path, file.failure()), from,
                 PosKind::line);
    return;
  }
  const FileId id = file.id();
  if (std::find(open_files_.begin(), open_files_.end(), id) != open_files_.end()) {
    diags_.error(fmt::format("include cycle: '{}' is already being read (it includes itself)", path), from,
                 PosKind::line);
    return;
  }
  std::string_view text = store_.keep_file(std::move(file));
  open_files_.push_back(id);
  parse(text, files_.add(path));
  open_files_.pop_back();
}

void ObjectReader::read_dir(const std::string& path, SourcePos from) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) == 0 && is_pseudo_filesystem(fs.f_type)) {
    diags_.error(
        fmt::format("config directory '{}' is on a pseudo filesystem (such as /proc), which holds no "
                    "configuration",
                    path),
        from, PosKind::line);
    return;
  }
  walk_dir(path, from);
}

// Directories nest as deep as paths allow, and include_dir in a file at the bottom starts another such
// walk: levels are kept on an explicit stack (one call per level overflowed the call stack), hold only
// their entries' names, and share one path string that grows and shrinks with the walk (a full path per
// entry made 24k nested directories take 1.2 GB).
void ObjectReader::walk_dir(const std::string& path, SourcePos from) {
  struct Level {
    FileId id;
    std::vector<std::string> names;  // in name order
    std::size_t next = 0;
    std::size_t path_length;  // of `current` when this level's directory was entered
  };
  std::vector<Level> levels;
  std::string current = path;
  auto enter = [&] {
    struct stat st {};
    DIR* dir = ::opendir(current.c_str());
    if (dir == nullptr || ::fstat(::dirfd(dir), &st) != 0) {
      if (dir != nullptr) ::closedir(dir);
      diags_.error(fmt::format("Could not open config directory '{}' for reading.", current), from,
                   PosKind::line);
      return;
    }
    Level level{{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)},
                {},
                0,
                current.size()};
    if (!open_dirs_.insert(level.id).second) {
      ::closedir(dir);
      diags_.error(fmt::format("config directory '{}' is already being read (it includes itself)", current),
                   from, PosKind::line);
      return;
    }
    while (const dirent* entry = ::readdir(dir))
      if (entry->d_name[0] != '.') level.names.emplace_back(entry->d_name);
    ::closedir(dir);
    // Naemon takes readdir() order, which differs between machines; name order is stable and reproducible.
    std::sort(level.names.begin(), level.names.end());
    levels.push_back(std::move(level));
  };
  enter();
  while (!levels.empty()) {
    Level& level = levels.back();
    current.resize(level.path_length);
    if (level.next == level.names.size()) {
      open_dirs_.erase(level.id);
      levels.pop_back();
      continue;
    }
    if (!current.empty() && current.back() != '/') current += '/';
    current += level.names[level.next++];
    struct stat st {};
    if (::stat(current.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      // cfg_dir=/ would walk /proc, whose links lead back to / and whose files never end.
      struct statfs fs {};
      if (::statfs(current.c_str(), &fs) == 0 && is_pseudo_filesystem(fs.f_type)) {
        diags_.warning(
            fmt::format("skipping '{}': a pseudo filesystem (such as /proc) holds no configuration", current),
            from, PosKind::line);
        continue;
      }
      enter();  // `level` is not used past this point: `levels` may move
    } else if (S_ISREG(st.st_mode) && current.ends_with(".cfg")) {
      read_file(current, from);
    }
  }
}

void ObjectReader::parse(std::string_view text, const std::string* file) {
  RawObject* current = nullptr;
  std::uint32_t line_no = 0;
  std::size_t pos = 0;
  std::string joined;  // only used for continued lines and escaped semicolons
  const std::string dir = std::filesystem::path(*file).parent_path().native();

  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::uint32_t first_line = line_no;

    // A trailing backslash continues the directive on the next line (whose leading blanks are dropped);
    // a trailing double backslash is one literal backslash, as in Naemon's mmap_fgets_multiline().
    if (std::string_view bare = without_cr(line); !bare.empty() && bare.back() == '\\') {
      joined.clear();
      for (bool first = true;; first = false) {
        std::string_view part = without_cr(line);
        if (!first) part = trim_front(part);
        if (part.ends_with("\\\\")) {
          part.remove_suffix(1);
          joined.append(part);
          break;
        }
        if (!part.ends_with('\\')) {
          joined.append(part);
          break;
        }
        part.remove_suffix(1);
        joined.append(part);
        if (pos >= text.size()) break;
        end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
      }
      line = store_.keep(std::move(joined));
    }

    // ';' starts a comment unless escaped as "\;".
    bool escaped_semicolon = false;
    for (std::size_t i = line.find(';'); i != std::string_view::npos; i = line.find(';', i + 1)) {
      if (i > 0 && line[i - 1] == '\\') {
        escaped_semicolon = true;
        continue;
      }
      line = line.substr(0, i);
      break;
    }
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (escaped_semicolon) {
      std::string unescaped;
      unescaped.reserve(line.size());
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == ';') continue;
        unescaped.push_back(line[i]);
      }
      line = store_.keep(std::move(unescaped));
    }

    const SourcePos at{file, first_line};
    if (line.starts_with("define")) {
      std::string_view rest = trim(line.substr(6));
      std::size_t type_end = std::min(first_blank(rest), rest.find('{'));
      std::string_view type_name = rest.substr(0, type_end);
      if (current != nullptr) {
        diags_.error(
            fmt::format("Unexpected start of object definition in file '{}' on line {}.  Make sure "
                        "you close preceding objects before starting a new one.",
                        *file, line_no));
        finish(current);
        current = nullptr;
      }
      if (type_name.empty()) {
        diags_.error(fmt::format("No object type specified in file '{}' on line {}.", *file, line_no));
        continue;
      }
      std::optional<ObjectType> type = object_type_from_name(type_name);
      if (!type) {
        diags_.error(fmt::format("Invalid object definition type '{}' in file '{}' on line {}.", type_name,
                                 *file, line_no));
        continue;
      }
      auto& list = store_.of(*type);
      ++definition_;
      current = &list.emplace_back();
      current->type = *type;
      current->at = at;
      current->attrs.swap(scratch_);  // filled in a reused buffer, sized exactly when closed
      continue;
    }
    if (current != nullptr) {
      if (line == "}") {
        finish(current);
        current = nullptr;
        continue;
      }
      add_directive(*current, line, at);
      continue;
    }
    if (line.starts_with("include_file=")) {
      std::string target(trim(line.substr(13)));
      if (!target.empty()) read_file(target.front() == '/' ? target : dir + "/" + target, at);
      continue;
    }
    if (line.starts_with("include_dir")) {
      std::size_t eq = line.find('=');
      std::string target(eq == std::string_view::npos ? std::string_view{} : trim(line.substr(eq + 1)));
      if (!target.empty()) read_dir(target.front() == '/' ? target : dir + "/" + target, at);
      continue;
    }
    diags_.error(fmt::format("Unexpected token or statement in file '{}' on line {}.", *file, line_no));
  }
  if (current != nullptr) {
    finish(current);
    diags_.error(fmt::format("Unexpected EOF in file '{}' on line {} - check for a missing closing bracket.",
                             *file, line_no));
  }
}

// Gives the definition an exactly sized copy of its directives and takes the buffer back: growing a
// vector per definition cost several allocations each and a third of its capacity unused.
void ObjectReader::finish(RawObject* obj) {
  for (auto& [position, value] : accumulated_) obj->attrs[position].value = store_.keep(std::move(value));
  accumulated_.clear();
  std::vector<RawAttr> exact(obj->attrs.begin(), obj->attrs.end());
  obj->attrs.swap(exact);
  exact.clear();
  scratch_ = std::move(exact);
}

void ObjectReader::add_directive(RawObject& obj, std::string_view line, SourcePos at) {
  std::size_t key_end = first_blank(line);
  std::string_view key = line.substr(0, key_end);
  std::string_view value =
      key_end == std::string_view::npos ? std::string_view{} : trim(line.substr(key_end));

  if (key == "use") {
    obj.use = value;
    return;
  }
  if (key == "name") {
    obj.template_name = value;
    return;
  }
  if (key == "register") {
    if (value.empty() || (value.front() != '0' && value.front() != '1')) {
      diags_.error(
          fmt::format("Invalid register value '{}' in {} definition", value, object_type_name(obj.type)), at,
          PosKind::line);
      return;
    }
    obj.registered = value.front() == '1';
    return;
  }
  if (key.front() == '_' && accepts_custom_variables(obj.type)) {
    if (key.size() == 1) {
      diags_.error("Empty custom variable name.", at, PosKind::line);
      return;
    }
    const ObjectStore::CustomName name = store_.custom_variable(is_upper(key) ? key : upper(key));
    RawAttr attr{value == "null" ? std::string_view{} : value, k_custom_variable, value == "null"};
    attr.name_id = name.id;
    if (custom_at_.size() <= name.id) custom_at_.resize(name.id + 1);
    Position& at = custom_at_[name.id];
    if (at.definition == definition_) {
      obj.attrs[at.index] = attr;
      return;
    }
    at = {definition_, static_cast<std::uint32_t>(obj.attrs.size())};
    obj.add(attr);
    return;
  }
  std::optional<DirectiveId> id = canonical_directive(obj.type, key);
  if (!id) {
    if (obj.type == ObjectType::timeperiod) {
      obj.timeperiod_parts().lines.push_back({line, at.line});
      return;
    }
    diags_.error(fmt::format("Invalid {} object directive '{}'.", object_type_name(obj.type), key), at,
                 PosKind::line);
    return;
  }
  const bool is_null = value == "null";
  const std::string_view canonical = k_directive_names[*id];
  const RawAttr attr{is_null ? std::string_view{} : value, *id, is_null};
  if (!obj.own.test(*id)) {
    directive_at_[*id] = static_cast<std::uint32_t>(obj.attrs.size());
    obj.add(attr);
    return;
  }
  const std::uint32_t position = directive_at_[*id];
  RawAttr& existing = obj.attrs[position];
  auto accumulated = std::find_if(accumulated_.begin(), accumulated_.end(),
                                  [&](const auto& a) { return a.first == position; });
  if (is_accumulating_directive(obj.type, canonical) && !is_null && !existing.is_null &&
      !existing.value.empty()) {
    if (accumulated == accumulated_.end())
      accumulated = accumulated_.insert(accumulated_.end(), {position, std::string(existing.value)});
    accumulated->second.append(",").append(value);
    return;
  }
  if (accumulated != accumulated_.end()) accumulated_.erase(accumulated);
  existing = attr;
}

}  // namespace vedette::config
