package sessionlog

import "sort"

// Row kinds of the human transcript (S30).
const (
	RowUser       = "user"
	RowSteering   = "steering"
	RowContext    = "context"
	RowAssistant  = "assistant"
	RowTool       = "tool"
	RowCompaction = "compaction-marker"
)

// Row is one transcript row. ID is the message id (empty for markers).
type Row struct {
	Seq  int    `json:"seq"`
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
}

// Transcript builds the human transcript (S30, S31): rows from append-origin
// events in log order, plus one marker per compaction checkpoint. A marker
// sits right after the rows of the span it condensed, where the checkpoint
// stands on the surface, so the reader sees it between what it summarises
// and what followed (C19).
func (l *Log) Transcript() []Row {
	type keyed struct {
		row    Row
		anchor int
		marker bool
	}
	var rows []keyed
	steeringIDs := map[string]bool{}
	anchor := make(map[int]int) // replacement seq -> highest original seq it covers
	for seq, ev := range l.Events {
		switch l.kinds[seq] {
		case kindReplace:
			a := -1
			for _, s := range l.shadows[seq] {
				sa := s
				if v, ok := anchor[s]; ok {
					sa = v
				}
				a = max(a, sa)
			}
			anchor[seq] = a
			if l.isCheckpoint(seq) {
				rows = append(rows, keyed{Row{Seq: seq, Kind: RowCompaction}, a, true})
			}
			continue
		case kindAppend:
		default:
			if ev.Type == "agent/inbox/spliced" {
				d := asMap(ev.Data())
				if asString(d["target"]) == "next-step" {
					ins, _ := d["inserted"].([]any)
					for _, m := range ins {
						if id, ok := asMap(m)["id"].(string); ok {
							steeringIDs[id] = true
						}
					}
				}
			}
			continue
		}
		id := messageID(ev)
		var kind string
		switch {
		case isUserKind(ev):
			kind = RowUser
			if steeringIDs[id] {
				kind = RowSteering
			}
		case isContext(ev):
			kind = RowContext
		case ev.Type == "assistant/message":
			if emptyContent(message(ev)) {
				continue
			}
			kind = RowAssistant
		case ev.Type == "tool/result":
			kind = RowTool
		default:
			continue // system/message, developer/message make no rows
		}
		rows = append(rows, keyed{Row{Seq: seq, Kind: kind, ID: id}, seq, false})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.anchor != b.anchor {
			return a.anchor < b.anchor
		}
		if a.marker != b.marker {
			return !a.marker
		}
		return a.row.Seq < b.row.Seq
	})
	out := make([]Row, len(rows))
	for i, k := range rows {
		out[i] = k.row
	}
	return out
}

// Env is what the planner and overlay need to know about the world outside
// the log: the agent's status and the host's in-memory wake tracking (S65).
type Env struct {
	AgentRunning bool
	WakePending  bool
	// Time stamps planned events (epoch ms); the harness may restamp them.
	Time int64
}

// Attachment describes an image or file block of a live revision (S32).
type Attachment struct {
	AttachmentID string `json:"attachmentId"`
	Kind         string `json:"kind"`
	Name         string `json:"name,omitempty"`
	MediaType    string `json:"mediaType,omitempty"`
}

// UserRow is the overlay of a user or steering row (S32).
type UserRow struct {
	Seq         int          `json:"seq"`
	ID          string       `json:"id"`
	LiveSeq     int          `json:"liveSeq"`
	Text        string       `json:"text"`
	Attachments []Attachment `json:"attachments"`
	Edited      bool         `json:"edited"`
	Undoable    bool         `json:"undoable"`
	Regenerable bool         `json:"regenerable"`
	Shadowed    bool         `json:"shadowed"`
}

// AssistantRow is the overlay of an assistant row (S34).
type AssistantRow struct {
	Seq         int    `json:"seq"`
	ID          string `json:"id"`
	Regenerable bool   `json:"regenerable"`
}

// Overlay is the editor's view over the transcript (S32–S34, S87).
type Overlay struct {
	CompactionOpen bool           `json:"compactionOpen"`
	UserRows       []UserRow      `json:"userRows"`
	AssistantRows  []AssistantRow `json:"assistantRows"`
	HiddenSeqs     []int          `json:"hiddenSeqs"`
}

// Overlay computes the overlay for rows in transcript order.
func (l *Log) Overlay(env Env) Overlay {
	ov := Overlay{
		CompactionOpen: l.CompactionOpen(),
		UserRows:       []UserRow{},
		AssistantRows:  []AssistantRow{},
		HiddenSeqs:     []int{},
	}
	idle := !env.AgentRunning && !env.WakePending
	copies := l.copyIndex()
	// A row is hidden when a regenerate copy shadowed it, unless it is that
	// copy's own original (S33).
	regenShadow := map[int]int{} // node -> original seq of the regenerate copy
	for orig, cs := range copies {
		for _, c := range cs {
			if c.action == ActionRegenerate {
				for _, s := range l.shadows[c.seq] {
					regenShadow[s] = orig
				}
			}
		}
	}
	for _, row := range l.Transcript() {
		ev := l.Events[row.Seq]
		switch row.Kind {
		case RowUser, RowSteering:
			live := l.liveNode(row.Seq, copies)
			liveContent := contentOf(message(l.Events[live]))
			onSurf := l.onSurface(live)
			edited := !deepEqual(anySlice(liveContent), anySlice(contentOf(message(ev))))
			ur := UserRow{
				Seq:         row.Seq,
				ID:          row.ID,
				LiveSeq:     live,
				Text:        editableText(liveContent),
				Attachments: attachmentsOf(liveContent),
				Edited:      edited,
				Undoable:    onSurf && edited && !hasRegenerate(copies[row.Seq]),
				Shadowed:    !onSurf,
			}
			if onSurf && !ov.CompactionOpen && idle {
				ur.Regenerable = l.reachesEnd(l.rangeFrom(live))
			}
			ov.UserRows = append(ov.UserRows, ur)
		case RowAssistant:
			ar := AssistantRow{Seq: row.Seq, ID: row.ID}
			// Compaction-open is not in S34's list, but S95 forbids a button
			// that always fails, and S77 refuses every regenerate meanwhile.
			if l.onSurface(row.Seq) && idle && !ov.CompactionOpen {
				if head, _, err := l.exchangeHead(row.Seq, copies); err == nil {
					ar.Regenerable = l.reachesEnd(l.rangeFrom(head))
				}
			}
			ov.AssistantRows = append(ov.AssistantRows, ar)
		}
		hidden := false
		if row.Kind == RowContext && isEditorSource(sourceOf(message(ev))) {
			hidden = true
		}
		if orig, ok := regenShadow[row.Seq]; ok && !(orig == row.Seq && (row.Kind == RowUser || row.Kind == RowSteering)) {
			hidden = true
		}
		if hidden {
			ov.HiddenSeqs = append(ov.HiddenSeqs, row.Seq)
		}
	}
	return ov
}

func anySlice(s []any) any {
	if s == nil {
		return []any{}
	}
	return s
}

func hasRegenerate(cs []editorCopy) bool {
	for _, c := range cs {
		if c.action == ActionRegenerate {
			return true
		}
	}
	return false
}

// editableText is E(content): every text block's text joined with "\n",
// untrimmed (Terms).
func editableText(content []any) string {
	out := ""
	first := true
	for _, b := range content {
		bm := asMap(b)
		if asString(bm["type"]) != "text" {
			continue
		}
		if !first {
			out += "\n"
		}
		out += asString(bm["text"])
		first = false
	}
	return out
}

func attachmentID(b any) (string, bool) {
	bm := asMap(b)
	t := asString(bm["type"])
	if t != "image" && t != "file" {
		return "", false
	}
	id, ok := asMap(bm["attachment"])["attachmentId"].(string)
	return id, ok
}

func attachmentsOf(content []any) []Attachment {
	out := []Attachment{}
	for _, b := range content {
		id, ok := attachmentID(b)
		if !ok {
			continue
		}
		bm := asMap(b)
		att := asMap(bm["attachment"])
		out = append(out, Attachment{
			AttachmentID: id,
			Kind:         asString(bm["type"]),
			Name:         asString(att["name"]),
			MediaType:    asString(att["mediaType"]),
		})
	}
	return out
}
