module tavern-core

go 1.26

require (
	github.com/agnivade/levenshtein v1.2.2 // indirect
	honnef.co/go/js/dom/v2 v2.0.0-20250304181735-b5e52f05e89d // indirect
)
