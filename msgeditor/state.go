package msgeditor

import "strconv"

// The route's exact paths (spec S82); duplicated from sessionlog/route,
// which the browser module must not link.
const (
	PathEdit       = "/api/plugins/tavern-core-message-editor/edit"
	PathUndo       = "/api/plugins/tavern-core-message-editor/undo"
	PathRegenerate = "/api/plugins/tavern-core-message-editor/regenerate"
	PathState      = "/api/plugins/tavern-core-message-editor/state"
	VersionHeader  = "X-Tavern-Core-Version"
)

// Version is this client build's version, sent on every request (S88). It
// matches js/package.json; a node test keeps the two equal.
const Version = "0.1.0"

// Attachment is one attachment of a user row's live revision (S32).
type Attachment struct {
	_                         noCompare
	ID, Kind, Name, MediaType string
}

// Label is the chip text: the name, else the media type, else the kind (S93).
func (a Attachment) Label() string {
	switch {
	case a.Name != "":
		return a.Name
	case a.MediaType != "":
		return a.MediaType
	}
	return a.Kind
}

// UserRow is the overlay of one user or steering row (S32, S87).
type UserRow struct {
	Seq, LiveSeq                            int
	ID, Text                                string
	Attachments                             []Attachment
	Edited, Undoable, Regenerable, Shadowed bool
}

// AssistantRow is the overlay of one assistant row (S34).
type AssistantRow struct {
	_           noCompare
	Seq         int
	ID          string
	Regenerable bool
}

// State is the route's state answer (S87).
type State struct {
	HostVersion                               string
	FormatVersion                             int
	AgentRunning, CompactionOpen, WakePending bool
	UserRows                                  []UserRow
	AssistantRows                             []AssistantRow
	Hidden                                    map[int]bool
}

// DecodeState reads the `value` of a successful state answer.
func DecodeState(v *Value) (*State, bool) {
	if v == nil || v.Kind != Object {
		return nil, false
	}
	st := &State{
		HostVersion:    v.Get("hostVersion").Str(),
		FormatVersion:  v.Get("formatVersion").Int(),
		AgentRunning:   v.Get("agentRunning").Truth(),
		CompactionOpen: v.Get("compactionOpen").Truth(),
		WakePending:    v.Get("wakePending").Truth(),
		Hidden:         map[int]bool{},
	}
	for _, r := range items(v.Get("userRows")) {
		u := UserRow{Seq: r.Get("seq").Int(), LiveSeq: r.Get("liveSeq").Int(), ID: r.Get("id").Str(),
			Text: r.Get("text").Str(), Edited: r.Get("edited").Truth(), Undoable: r.Get("undoable").Truth(),
			Regenerable: r.Get("regenerable").Truth(), Shadowed: r.Get("shadowed").Truth()}
		for _, a := range items(r.Get("attachments")) {
			u.Attachments = append(u.Attachments, Attachment{ID: a.Get("attachmentId").Str(), Kind: a.Get("kind").Str(),
				Name: a.Get("name").Str(), MediaType: a.Get("mediaType").Str()})
		}
		if u.Seq < 0 {
			return nil, false
		}
		st.UserRows = append(st.UserRows, u)
	}
	for _, r := range items(v.Get("assistantRows")) {
		a := AssistantRow{Seq: r.Get("seq").Int(), ID: r.Get("id").Str(), Regenerable: r.Get("regenerable").Truth()}
		if a.Seq < 0 {
			return nil, false
		}
		st.AssistantRows = append(st.AssistantRows, a)
	}
	for _, h := range items(v.Get("hiddenSeqs")) {
		st.Hidden[h.Int()] = true
	}
	return st, true
}

func items(v *Value) []*Value {
	if v == nil || v.Kind != Array {
		return nil
	}
	return v.Items
}

// Result is one route answer, read through the envelope (S84).
type Result struct {
	_             noCompare
	OK            bool
	Value         *Value
	Code, Message string
	// NoEnvelope: the answer was not the route's (a proxy's 502, a page
	// of HTML), so it says nothing of whether the operation was written.
	NoEnvelope bool
}

// Refusal codes the widget treats specially.
const (
	CodeVersionSkew = "version-skew"
	CodeNotLoaded   = "session-not-loaded"
	CodeInternal    = "internal"
)

// SkewMessage is shown when the host has no editor route at all: a 404
// without the envelope means a host too old to have it (S88).
const SkewMessage = "The host has no tavern-core-message-editor route (it answered 404). Restart DeepSeek Harness to load the new version; no data was changed."

// ParseResponse reads an HTTP answer. status 0 means the request never got
// an answer; body then holds the reason.
func ParseResponse(status int, body string) Result {
	if status == 0 {
		return Result{Code: CodeInternal, Message: "The request did not reach the host: " + body + ". Nothing was saved."}
	}
	if v, err := Parse(body); err == nil {
		if ok := v.Get("ok"); ok != nil && ok.Kind == Bool {
			if ok.B {
				return Result{OK: true, Value: v.Get("value")}
			}
			e := v.Get("error")
			if code := e.Get("code").Str(); code != "" {
				return Result{Code: code, Message: e.Get("message").Str()}
			}
		}
	}
	if status == 404 {
		return Result{Code: CodeVersionSkew, Message: SkewMessage}
	}
	return Result{Code: CodeInternal, Message: "The host answered HTTP " + strconv.Itoa(status) + " without an editor envelope.", NoEnvelope: true}
}
