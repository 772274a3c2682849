# Reads the small part of YAML (and JSON) that the test guest's cloud-init data needs.
# The guest has no YAML parser, only busybox; this covers what KubeVirt and its users write:
#
#   awk -v scalar=KEY -f cloud-config.awk FILE
#     prints the value of KEY: a top-level YAML `KEY: value` (plain, 'single' or "double"
#     quoted, a trailing ` # comment` dropped) or a JSON `"KEY": "string"` anywhere, as in
#     the meta-data KubeVirt writes ({"instance-id":"...","local-hostname":"..."}).
#
#   awk -v list=KEY -f cloud-config.awk FILE
#     prints the items of the top-level block list KEY (`runcmd:` then `- item` lines, at any
#     indentation), each as shell text:
#       - echo plain text        -> the text (a trailing ` # comment` dropped, as YAML does)
#       - 'quoted' / "quoted"    -> the text without the quotes
#       - [ls, -l, "a b"]        -> an argv list, each element single-quoted for the shell
#       - |  (or >) + indented lines  -> a block: lines kept (|) or joined with spaces (>)
#
# Not covered (the guest reports nothing for them): flow lists on the key's own line
# (`runcmd: [a, b]`), plain or quoted scalars continued on the next line, anchors, tags.

function trim(s) {
  sub(/^[ \t]+/, "", s)
  sub(/[ \t\r]+$/, "", s)
  return s
}

function indentation(s) {
  match(s, /^ */)
  return RLENGTH
}

function is_quoted(s, q) {
  q = substr(s, 1, 1)
  return length(s) >= 2 && (q == "\"" || q == "'") && substr(s, length(s), 1) == q
}

function unquote(s, q) {
  if (!is_quoted(s)) return s
  q = substr(s, 1, 1)
  s = substr(s, 2, length(s) - 2)
  if (q == "'") gsub(/''/, "'", s)
  else gsub(/\\"/, "\"", s)
  return s
}

# Position of the quote that closes the quoted scalar s (0 if none): '' escapes a single
# quote inside '...', backslash escapes the next character inside "...".
function closing_quote(s, q, i, c) {
  q = substr(s, 1, 1)
  for (i = 2; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (q == "\"" && c == "\\") i++
    else if (c == q && q == "'" && substr(s, i + 1, 1) == "'") i++
    else if (c == q) return i
  }
  return 0
}

# A quoted scalar ends at its closing quote; a plain one at " #" (a YAML comment).
function scalar_value(s, end) {
  s = trim(s)
  if (s ~ /^["']/ && (end = closing_quote(s)) > 0) return unquote(substr(s, 1, end))
  sub(/[ \t]+#.*$/, "", s)
  return s
}

function shell_quote(s) {
  gsub(/'/, "'\\''", s)
  return "'" s "'"
}

# "[a, 'b c', \"d, e\"]" -> "'a' 'b c' 'd, e'" (commas inside quotes do not split).
function argv_line(s, inner, i, c, quote, element, line) {
  inner = substr(s, 2, length(s) - 2)
  quote = ""
  element = ""
  line = ""
  for (i = 1; i <= length(inner) + 1; i++) {
    c = i <= length(inner) ? substr(inner, i, 1) : ","
    if (quote != "") {
      if (c == quote) quote = ""
      element = element c
    } else if (c == "\"" || c == "'") {
      quote = c
      element = element c
    } else if (c == ",") {
      element = trim(element)
      if (element != "") line = line (line == "" ? "" : " ") shell_quote(unquote(element))
      element = ""
    } else {
      element = element c
    }
  }
  return line
}

function end_block() {
  if (block_style == ">" && folded != "") print folded
  block_style = ""
  folded = ""
}

function list_item(text) {
  text = trim(text)
  if (text ~ /^[|>][-+]?$/) {
    block_style = substr(text, 1, 1)
    block_indent = 0
    return
  }
  if (text ~ /^\[.*\]$/) {
    print argv_line(text)
    return
  }
  if (text != "") print scalar_value(text)
}

BEGIN {
  in_list = 0
  block_style = ""
}

{ sub(/\r$/, "") }

scalar != "" {
  if (match($0, "\"" scalar "\"[ \t]*:[ \t]*\"[^\"]*\"")) {
    value = substr($0, RSTART, RLENGTH)
    sub(/^"[^"]*"[ \t]*:[ \t]*/, "", value)
    print unquote(value)
    exit
  }
  if (index($0, scalar ":") == 1) {
    print scalar_value(substr($0, length(scalar) + 2))
    exit
  }
  next
}

block_style != "" {
  if ($0 ~ /^[ \t]*$/) {
    if (block_style == "|") print ""
    next
  }
  if (indentation($0) > item_indent) {
    if (block_indent == 0) block_indent = indentation($0)
    line = substr($0, block_indent + 1)
    if (block_style == "|") print line
    else folded = folded (folded == "" ? "" : " ") line
    next
  }
  end_block()
}

in_list {
  if ($0 ~ /^[ \t]*(#.*)?$/) next
  if ($0 ~ /^ *-( |$)/) {
    item_indent = indentation($0)
    list_item(substr($0, item_indent + 2))
    next
  }
  in_list = 0
}

list != "" && index($0, list ":") == 1 && trim(substr($0, length(list) + 2)) ~ /^(#.*)?$/ {
  in_list = 1
}

END { end_block() }
