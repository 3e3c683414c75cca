package chatsurface

// noCompare, as a struct's first field, makes the struct not comparable:
// Go then links no equality function for it, which every comparable struct
// holding a string or a float has (a few hundred bytes each in the page's
// module; docs/architecture.md, "Size"). Zero bytes, and first so that it
// adds no padding.
type noCompare [0]func()
