// objects.cache (`object_cache_file`) in Naemon's format (its fcache_objects): every object of the loaded
// model as resolved (templates applied, groups and hostgroup services expanded), for the CGIs and other
// readers. Naemon writes it once at start-up, after loading the configuration; so does Vedette, on the
// calling thread (the main thread, before the core runs), into `<file>XXXXXX` in the same directory,
// fsynced and renamed over the file, so readers never see a partial one.
//
//   const files::ObjectCacheResult r = files::write_object_cache(main.object_cache_file, model,
//   std::time(nullptr)); if (!r.error.empty()) log(r.error);
//
// Objects, fields, their order and formats are Naemon's; the differences are listed in docs/compatibility.md
// ("objects.cache"). Cost at 100k services: bench/files/object_cache_bench.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace vedette::model {
struct Model;
}  // namespace vedette::model

namespace vedette::files {

// Whose readers the file is for. Naemon's (the default) is what Naemon writes. Nagios 4's readers (its
// CGIs, Debian's nagios4-cgi) refuse the whole file over the check_timeout line Naemon writes for each host
// and service, so that format leaves those lines out (`object_cache_format=nagios`).
enum class ObjectCacheFormat : std::uint8_t { naemon, nagios };

// Appends the whole file for `model` to `out`; `created` (seconds since the epoch) goes into the header's
// "Created:" line, in local time as ctime() prints it. Exposed for tests and the benchmark.
void format_object_cache(const model::Model& model, std::int64_t created, std::string& out,
                         ObjectCacheFormat format = ObjectCacheFormat::naemon);

struct ObjectCacheResult {
  bool written = false;  // false also when the path is empty or /dev/null (Naemon writes nothing then)
  std::string error;     // why the file could not be written; empty on success
  std::uint64_t bytes = 0;
};

// Writes the file as described above. Never throws; a failure leaves any previous file in place.
[[nodiscard]] ObjectCacheResult write_object_cache(const std::string& path, const model::Model& model,
                                                   std::int64_t created,
                                                   ObjectCacheFormat format = ObjectCacheFormat::naemon);

}  // namespace vedette::files
