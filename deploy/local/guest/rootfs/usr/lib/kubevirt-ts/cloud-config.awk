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
#       - 'quoted' / "quoted"    -> the text without the quotes ("..." escapes \n \t \" \\ undone)
#       - [ls, -l, "a b"]        -> an argv list, each element single-quoted for the shell
#       - |  (or >) + indented lines  -> a block: lines kept (|) or joined with spaces (>)
#     or of a flow list on the key's own line (`ssh_authorized_keys: ["ssh-ed25519 AAAA..."]`),
#     one element a line, unquoted.
#
#   awk -v list=KEY.CHILD -f cloud-config.awk FILE
#     the same for the key CHILD of the top-level mapping KEY, in block style
#       chpasswd:
#         expire: false
#         list: |                 (or `list:` + `- root:secret` items, or `list: [a, b]`)
#           root:secret
#     or in flow style (`chpasswd: { expire: False, list: [ "root:secret" ] }`); a block scalar
#     (`|`) yields its lines, a plain or quoted scalar itself.
#
# Not covered (the guest reports nothing for them): nesting deeper than KEY.CHILD, flow lists
# inside flow lists, plain or quoted scalars continued on the next line, anchors, tags.

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
  else s = unescape(s)
  return s
}

# The escapes of a YAML double-quoted scalar that cloud-config data uses; others stay as written.
function unescape(s, out, i, c, n) {
  out = ""
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == "\\" && i < length(s)) {
      n = substr(s, ++i, 1)
      if (n == "n") c = "\n"
      else if (n == "t") c = "\t"
      else if (n == "\"" || n == "\\" || n == "/") c = n
      else c = "\\" n
    }
    out = out c
  }
  return out
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

# Splits the inside of a flow collection ("[...]" or "{...}") at its top-level commas (not those
# inside quotes or nested brackets) into items[1..n], trimmed, quotes kept; returns n.
function flow_items(s, items, inner, i, c, quote, depth, element, n) {
  inner = substr(s, 2, length(s) - 2)
  quote = ""
  depth = 0
  element = ""
  n = 0
  for (i = 1; i <= length(inner) + 1; i++) {
    c = i <= length(inner) ? substr(inner, i, 1) : ","
    if (quote != "") {
      if (c == quote) quote = ""
      element = element c
    } else if (c == "\"" || c == "'") {
      quote = c
      element = element c
    } else if (c == "," && depth == 0) {
      element = trim(element)
      if (element != "") items[++n] = element
      element = ""
    } else {
      if (c == "[" || c == "{") depth++
      else if (c == "]" || c == "}") depth--
      element = element c
    }
  }
  return n
}

# "[a, 'b c', \"d, e\"]" -> "'a' 'b c' 'd, e'" (commas inside quotes do not split).
function argv_line(s, items, n, i, line) {
  n = flow_items(s, items)
  line = ""
  for (i = 1; i <= n; i++) line = line (line == "" ? "" : " ") shell_quote(unquote(items[i]))
  return line
}

# The value after "KEY:" with a trailing comment dropped ("" if none).
function key_rest(line, key, rest) {
  rest = trim(substr(line, length(key) + 2))
  if (rest ~ /^#/) return ""
  if (rest ~ /^[\[{]/) {
    sub(/[ \t]+#[^]}]*$/, "", rest)
    return rest
  }
  return rest
}

# What a list key's value on its own line yields: a flow list's elements, a scalar itself, or
# the start of a block scalar (the lines after it, indented deeper than `indent`).
function inline_value(value, indent, items, n, i) {
  if (value ~ /^[|>][-+]?$/) {
    block_style = substr(value, 1, 1)
    block_indent = 0
    item_indent = indent
  } else if (value ~ /^\[.*\]$/) {
    n = flow_items(value, items)
    for (i = 1; i <= n; i++) print unquote(items[i])
  } else if (value != "") {
    print scalar_value(value)
  }
}

# The CHILD entry of a flow mapping "{ a: 1, CHILD: [x, y] }".
function flow_mapping_child(s, child, items, n, i, key) {
  n = flow_items(s, items)
  for (i = 1; i <= n; i++) {
    key = items[i]
    sub(/[ \t]*:.*$/, "", key)
    if (unquote(key) == child) {
      inline_value(trim(substr(items[i], index(items[i], ":") + 1)), 0)
      return
    }
  }
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
  in_parent = 0
  block_style = ""
  list_key = list
  list_child = ""
  if (index(list, ".") > 0) {
    list_key = substr(list, 1, index(list, ".") - 1)
    list_child = substr(list, index(list, ".") + 1)
  }
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

# Inside KEY's block mapping: look for CHILD at the mapping's indentation.
in_parent {
  if ($0 ~ /^[ \t]*(#.*)?$/) next
  if (indentation($0) == 0) {
    in_parent = 0
  } else {
    if (child_indent < 0) child_indent = indentation($0)
    if (indentation($0) == child_indent && index(substr($0, child_indent + 1), list_child ":") == 1) {
      in_parent = 0
      value = key_rest(substr($0, child_indent + 1), list_child)
      if (value == "") in_list = 1
      else inline_value(value, child_indent)
    }
    next
  }
}

list != "" && index($0, list_key ":") == 1 {
  value = key_rest($0, list_key)
  if (list_child == "") {
    if (value == "") in_list = 1
    else if (value ~ /^\[.*\]$/) inline_value(value, 0)
  } else if (value == "") {
    in_parent = 1
    child_indent = -1
  } else if (value ~ /^\{.*\}$/) {
    flow_mapping_child(value, list_child)
  }
}

END { end_block() }
