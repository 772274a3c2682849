// One YAML renderer for every generated manifest. Output must read the same with YAML 1.2 parsers
// (kubectl, the `yaml` package) and YAML 1.1 parsers (PyYAML, and so Ansible and many CI tools):
// the 1.1 schema quotes strings such as `yes`/`on`/`0755` that 1.1 would turn into booleans or numbers,
// and a string holding a tab is double-quoted, since a tab inside a plain scalar stops PyYAML's scanner
// (upstream's field descriptions carry some, e.g. "KVM \t(KVM clock)").
import { Document, isScalar, visit } from "yaml";

export function renderYaml(value: unknown): string {
  const doc = new Document(value, { version: "1.1", sortMapEntries: true });
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === "string" && node.value.includes("\t")) {
        node.type = "QUOTE_DOUBLE";
      }
    },
  });
  // The document carries no %YAML directive: both parser families read it the same way without one.
  return doc.toString({ lineWidth: 0, indentSeq: false, directives: false });
}
