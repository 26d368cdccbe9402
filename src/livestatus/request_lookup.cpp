// parse_request() with the real tables and clock, apart from request.cpp so that a program using only the
// explicit overload (the unit tests) does not pull in the tables.
#include "livestatus/request.hpp"
#include "livestatus/tables.hpp"

#include <ctime>

namespace vedette::livestatus {

bool parse_request(std::string_view text, Request& out, RequestError& error) {
  return parse_request(text, out, error, &find_table, std::time(nullptr));
}

}  // namespace vedette::livestatus
