package protocol

import "strconv"

// JS renders js/protocol.js.
func JS() string {
	var b builder
	b.WriteString("// Generated from tavern-core/protocol by `go test ./protocol -update`: do not edit.\n")
	b.WriteString("// Every number Go and JavaScript agree on at the bridge has its one source there.\n")
	for _, g := range Groups() {
		b.WriteString("\n// " + g.Doc + "\n")
		if g.Strings != nil {
			b.WriteString("export const " + g.Name + " = Object.freeze([\n")
			for _, s := range g.Strings {
				b.WriteString("  " + strconv.Quote(s) + ",\n")
			}
			b.WriteString("]);\n")
			continue
		}
		b.WriteString("export const " + g.Name + " = Object.freeze({\n")
		for _, e := range g.Entries {
			b.WriteString("  " + key(e.Name) + ": " + strconv.Itoa(e.Value) + ",\n")
		}
		b.WriteString("});\n")
	}
	return string(b)
}

// builder is a strings.Builder without the strings package, whose
// import alone would link the unicode package's init into the browser
// module.
type builder []byte

func (b *builder) WriteString(s string) { *b = append(*b, s...) }

// key quotes a name JavaScript would not accept bare (none today: typeof
// names are identifiers too).
func key(s string) string {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return strconv.Quote(s)
		}
	}
	return s
}
