//go:build js && wasm

package main

// A small Fetch ⇄ net/http bridge (S89). github.com/syumai/workers v0.30.2
// was evaluated first and rejected: it serves one request per Go instance
// (see README.md), while the route keeps per-session locks and pending
// wakes in memory across requests.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/sessionlog"
)

// fetchRequestKey holds the original JS Request in the *http.Request's
// context, so the host's auth hook sees the Request it was sent.
type fetchRequestKey struct{}

func fetchRequestOf(r *http.Request) js.Value {
	if v, ok := r.Context().Value(fetchRequestKey{}).(js.Value); ok {
		return v
	}
	return js.Undefined()
}

// fetchHandler exposes h as the JS function (Request) => Promise<Response>.
// Each request runs on its own goroutine, so the handler may block on
// promises (body reads, an async flush or followup) while JS keeps running.
func fetchHandler(h http.Handler) js.Func {
	return bridge.FuncOf(func(_ js.Value, args []js.Value) any {
		req := arg(args, 0)
		return newPromise(func() (js.Value, error) { return serveFetch(h, req), nil })
	}, func(e *apierr.Error) any { return internalResponse(errors.New(jsvalue.GoString(e.Message))) })
}

// serveFetch never fails: conversion problems and panics become the route's
// JSON envelope with code internal, so a request always gets a Response.
func serveFetch(h http.Handler, req js.Value) (resp js.Value) {
	rec := &recorder{header: http.Header{}}
	defer func() {
		if r := recover(); r != nil {
			resp = internalResponse(panicError(r))
		}
	}()
	r, body, err := toRequest(req)
	if err != nil {
		return internalResponse(err)
	}
	defer body.Close()
	h.ServeHTTP(rec, r)
	return rec.response()
}

// maxHeaders bounds the header fields read from one Request (Node's own
// HTTP server stops at 2,000 by default).
const maxHeaders = 2000

// headerOf reads a Request's headers by their iterator, as the Fetch
// Headers class iterates them: repeated fields already joined with ", ",
// each entry kept as one value (never split on commas). At most maxHeaders
// entries are read: an array-like's length (2^32 − 1 blocked the event loop
// and ran Node out of memory in Array.from) never sizes anything.
func headerOf(headers js.Value) (http.Header, error) {
	bad := errors.New("the request's headers are not name/value string pairs")
	// of(t) passes a read through when it succeeded with a value of type t.
	of := func(t js.Type) func(js.Value, error) (js.Value, error) {
		return func(v js.Value, err error) (js.Value, error) {
			if err == nil && bridge.TypeOf(v) != t {
				err = bad
			}
			return v, err
		}
	}
	fn, obj := of(js.TypeFunction), of(js.TypeObject)
	if _, err := obj(headers, nil); err != nil {
		return nil, err
	}
	iterate, err := fn(prop(headers, js.Global().Get("Symbol").Get("iterator")))
	if err != nil {
		return nil, err
	}
	it, err := obj(jsCall(func() js.Value { return iterate.Call("call", headers) }))
	if err != nil {
		return nil, err
	}
	next, err := fn(prop(it, "next"))
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	for n := 0; ; n++ {
		r, err := obj(jsCall(func() js.Value { return next.Call("call", it) }))
		if err != nil {
			return nil, err
		}
		done, err := prop(r, "done")
		if err != nil {
			return nil, err
		}
		if done.Truthy() {
			return header, nil
		}
		if n == maxHeaders {
			return nil, fmt.Errorf("the request has more than %d header fields", maxHeaders)
		}
		e, err := obj(prop(r, "value"))
		if err != nil {
			return nil, err
		}
		k, err1 := prop(e, 0)
		v, err2 := prop(e, 1)
		if err1 != nil || err2 != nil || bridge.TypeOf(k) != js.TypeString || bridge.TypeOf(v) != js.TypeString {
			return nil, bad
		}
		header.Add(k.String(), v.String())
	}
}

func toRequest(req js.Value) (*http.Request, *streamBody, error) {
	notRequest := fmt.Errorf("the route handler takes a Fetch Request, got %s", bridge.TypeName(req))
	if bridge.TypeOf(req) != js.TypeObject {
		return nil, nil, notRequest
	}
	// Every read of the host's Request goes through prop: its getters may throw.
	var fields [4]js.Value
	for i, k := range [...]string{"url", "method", "headers", "body"} {
		v, err := prop(req, k)
		if err != nil {
			return nil, nil, err
		}
		fields[i] = v
	}
	rawURL, method, headers, stream := fields[0], fields[1], fields[2], fields[3]
	if bridge.TypeOf(rawURL) != js.TypeString || bridge.TypeOf(method) != js.TypeString {
		return nil, nil, notRequest
	}
	u, err := url.Parse(rawURL.String())
	if err != nil {
		return nil, nil, err
	}
	header, err := headerOf(headers)
	if err != nil {
		return nil, nil, err
	}
	// A Request built by a Node server from an incoming message carries the
	// Host header; a Request built by hand may not, and then its URL's
	// authority is the host it was addressed to.
	host := header.Get("Host")
	header.Del("Host")
	if host == "" {
		host = u.Host
	}
	body := &streamBody{stream: stream}
	r := &http.Request{
		Method:     method.String(),
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Host:       host,
		RequestURI: u.RequestURI(),
		Body:       body,
	}
	switch {
	case isNullish(body.stream):
		r.Body = http.NoBody
	case header.Get("Content-Length") != "":
		n, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64)
		if err != nil || n < 0 {
			n = -1
		}
		r.ContentLength = n
	default:
		r.ContentLength = -1
	}
	return r.WithContext(context.WithValue(context.Background(), fetchRequestKey{}, req)), body, nil
}

// streamBody reads a Fetch body stream chunk by chunk as the handler asks
// for it, so a reader with a limit never buffers more than the limit plus
// one chunk (S85.5). Close cancels whatever the handler did not read.
type streamBody struct {
	stream js.Value
	reader js.Value
	buf    []byte
	done   bool
}

func (b *streamBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if b.done || isNullish(b.stream) {
			return 0, io.EOF
		}
		if b.reader.IsUndefined() {
			r, err := jsCall(func() js.Value { return b.stream.Call("getReader") })
			if err != nil {
				return 0, err
			}
			b.reader = r
		}
		res, err := callAwait(func() js.Value { return b.reader.Call("read") })
		if err != nil {
			b.done = true
			return 0, err
		}
		done, err := prop(res, "done")
		if err != nil {
			b.done = true
			return 0, err
		}
		if done.Truthy() {
			b.done = true
			return 0, io.EOF
		}
		chunk, err := prop(res, "value")
		if err == nil {
			b.buf, err = chunkBytes(chunk)
		}
		if err != nil {
			b.done = true
			return 0, err
		}
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// maxChunk bounds one body chunk: the route reads at most route.MaxBody
// (+1) bytes, and a stream's chunks are a few KiB.
const maxChunk = 1 << 20

// chunkBytes copies a body chunk, which must be a Uint8Array of at most
// maxChunk bytes. Uint8Array.prototype.slice makes a JS copy by the array's
// internal slots (it throws, caught, for anything else, a Proxy included),
// so no getter of the host's runs and the length Go sizes its copy by is
// the real one.
func chunkBytes(chunk js.Value) ([]byte, error) {
	c, err := jsCall(func() js.Value {
		return js.Global().Get("Uint8Array").Get("prototype").Get("slice").Call("call", chunk)
	})
	if err != nil {
		return nil, errors.New("the request body stream gave a chunk that is not a Uint8Array")
	}
	n := c.Length()
	if n > maxChunk {
		return nil, fmt.Errorf("the request body stream gave a chunk over %d bytes", maxChunk)
	}
	buf := make([]byte, n)
	js.CopyBytesToGo(buf, c)
	return buf, nil
}

func (b *streamBody) Close() error {
	if !b.done && !b.reader.IsUndefined() {
		b.done = true
		jsCall(func() js.Value { return b.reader.Call("cancel") })
	}
	return nil
}

// recorder buffers the handler's answer; the route answers small JSON
// documents, so no streaming is needed (S89).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }
func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *recorder) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func (w *recorder) response() js.Value {
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	headers := js.Global().Get("Headers").New()
	for k, vs := range w.header {
		for _, v := range vs {
			headers.Call("append", k, v)
		}
	}
	init := js.Global().Get("Object").New()
	init.Set("status", status)
	init.Set("headers", headers)
	body := js.Null()
	if w.body.Len() > 0 && status != http.StatusNoContent && status != http.StatusNotModified {
		body = js.Global().Get("Uint8Array").New(w.body.Len())
		js.CopyBytesToJS(body, w.body.Bytes())
	}
	return js.Global().Get("Response").New(body, init)
}

// internalResponse is the route's envelope for a failure of the bridge
// itself (S84, S86).
func internalResponse(err error) js.Value {
	rec := &recorder{header: http.Header{}}
	rec.header.Set("Content-Type", "application/json; charset=utf-8")
	rec.header.Set("Cache-Control", "no-store")
	rec.WriteHeader(http.StatusInternalServerError)
	b, _ := sessionlog.EncodeJSON(map[string]any{"ok": false, "error": map[string]any{"code": sessionlog.CodeInternal, "message": err.Error()}})
	rec.body.Write(b)
	return rec.response()
}
