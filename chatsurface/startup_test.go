package chatsurface

import (
	"testing"

	"tavern-core/apierr"
)

// C138: the default table, in order.
func TestC138_DefaultRequirements(t *testing.T) {
	got := DefaultRequirements()
	if len(got) != 2 || got[0].ExtensionName != "JS-Slash-Runner" || got[0].ParticipantID != "js-slash-runner/message-runtime" ||
		got[1].ExtensionName != "LittleWhiteBox" || got[1].ParticipantID != "littlewhitebox/message-runtime" {
		t.Fatalf("%+v", got)
	}
}

// C137 C138 S90: an enabled required extension without its participant
// fails the gate; with it the gate passes; a disabled one is not required.
func TestC137_S90_Gate(t *testing.T) {
	r := NewRegistry()
	enabled := []string{"third-party/JS-Slash-Runner"}
	wantErr(t, r.Gate(enabled, DefaultRequirements()), apierr.PlainError,
		`Bounded ChatSurface requires extension "JS-Slash-Runner" to register protocol v1 participant "js-slash-runner/message-runtime"`)
	if !Required("third-party/JS-Slash-Runner", DefaultRequirements()) || Required("third-party/X", DefaultRequirements()) {
		t.Fatal("Required")
	}
	h := newHarness(t, true)
	h.page.Registry = r
	h.participant("js-slash-runner/message-runtime", hooks{prepare: nop})
	if err := r.Gate(enabled, DefaultRequirements()); err != nil {
		t.Fatal(err)
	}
}

// C134 C137 S91 S92: exact messages; a third-party/ prefix is kept in the
// hook error.
func TestC134_S91_S92_Messages(t *testing.T) {
	wantErr(t, ErrHookNotFunction(ChatSurfaceHook, "X", "registerChatSurface"), apierr.PlainError,
		`Extension "X" declares chatSurface hook "registerChatSurface" but does not export a function of that name`)
	wantErr(t, ErrHookNotFunction(ChatSurfaceHook, "third-party/X", "h"), apierr.PlainError,
		`Extension "third-party/X" declares chatSurface hook "h" but does not export a function of that name`)
	wantErr(t, ErrHookNotFunction(ActivateHook, "third-party/JS-Slash-Runner", "init"), apierr.PlainError,
		`Extension "third-party/JS-Slash-Runner" declares activate hook "init" but does not export a function of that name`)
	wantErr(t, ErrRequirementsNotArray(), apierr.TypeError, "ChatSurface capability requirements must be an array")
	wantErr(t, ErrMalformedRequirement(), apierr.TypeError, "ChatSurface renderer capability is malformed")
	if ExtensionMatches("third-party/third-party/X", "X") || !ExtensionMatches("X", "X") {
		t.Fatal("only one leading third-party/ is removed")
	}
}

// C134: the precedence between the seed's chatSurface hook and the
// activate hook real renderers declare.
func TestC134_StartupHookPrecedence(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		chatSurface, activate *string
		want                  HookKey
	}{
		{str("registerChatSurface"), nil, ChatSurfaceHook},
		{nil, str("init"), ActivateHook},
		{str("registerChatSurface"), str("init"), ChatSurfaceHook},
		{str(""), str("init"), ActivateHook},
		{nil, str(""), NoHook},
		{nil, nil, NoHook},
		{str(""), str(""), NoHook},
	} {
		if got := StartupHook(c.chatSurface, c.activate); got != c.want {
			t.Errorf("StartupHook(%v, %v) = %v, want %v", c.chatSurface, c.activate, got, c.want)
		}
	}
	if ChatSurfaceHook.Name() != "chatSurface" || ActivateHook.Name() != "activate" || NoHook.Name() != "" {
		t.Fatal("hook names")
	}
}
