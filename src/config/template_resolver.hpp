// Applies `use` templates to every object definition, as Naemon does: the object's own directives win,
// then the templates in `use` order (the first listed wins), each resolved first; `+value` extends an
// inherited list; `null` stops inheritance. Custom variables inherit by name, through RawObject::bases
// (config/custom_variables.hpp). No depth of `use` chain can exhaust the stack. Loader thread.
#pragma once

#include "config/diagnostics.hpp"
#include "config/raw_object.hpp"

namespace vedette::config {

void resolve_templates(ObjectStore& store, Diagnostics& diags);

// Strips the leading '+' that additive directives keep when there was nothing to add to; escalation
// contacts keep theirs until they have inherited from their host or service.
void clean_additive_values(ObjectStore& store);

}  // namespace vedette::config
