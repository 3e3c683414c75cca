module tavern-core

go 1.26

require github.com/agnivade/levenshtein v1.2.2
