// A chat-surface participant that does nothing until a test reports a fault
// through its registration (C21, C23): globalThis.__faultingParticipant.fault(error).
const api = window.__TAURITAVERN__?.api?.chatSurface;
const registration = api?.registerParticipant({ id: 'tavern-test/faulting', protocolVersion: 1, didMount() {} });
globalThis.__faultingParticipant = { fault: (e) => registration.fault(e) };
