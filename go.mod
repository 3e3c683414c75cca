module tavern-core

go 1.26

require github.com/agnivade/levenshtein v1.2.2

require github.com/klauspost/compress v1.20.4
