// The contract's example extension (seeds/003, "Host API"), kept verbatim
// inside a function so a test can hand it a window and the helpers the
// example leaves to the extension (startLegacyRenderer, rewriteMacros,
// mountRuntime, observeMessage, decorateContent). Do not edit the body:
// the point is that the example works unchanged.
export function seedExtension(window, { startLegacyRenderer, rewriteMacros, mountRuntime, observeMessage, decorateContent }) {
const api = window.__TAURITAVERN__?.api?.chatSurface;
const managed = api?.isManagedOwnershipRequired?.() === true;

if (!managed) {
    startLegacyRenderer();
}

const registration = managed ? api.registerParticipant({
    id: 'my-extension/frontend-runtime',
    protocolVersion: api.protocolVersion,

    prepareContent({ content }, claims) {
        rewriteMacros(content);
        for (const source of content.querySelectorAll('[data-my-runtime]')) {
            claims.claim(source, ({ element, mesid, source, signal }) => {
                const runtime = mountRuntime({ element, mesid, source, signal });
                return () => runtime.dispose();
            });
        }
    },

    didMount({ element, signal }) {
        const observer = observeMessage(element);
        return () => observer.disconnect();
    },

    didCommitContent({ content, signal }) {
        return decorateContent(content, signal);
    },
}) : null;

return { api, managed, registration };
}

// Recording helpers for the example.
export function seedHelpers(log) {
  return {
    startLegacyRenderer() { log.push('legacy'); },
    rewriteMacros(content) {
      log.push(`macros:${content.isConnected}`);
      content.innerHTML = content.innerHTML.replaceAll('{{user}}', 'Alice');
    },
    mountRuntime({ element, mesid, source, signal }) {
      log.push(`runtime:${mesid}:${source.isConnected && element.contains(source)}:${signal.aborted}`);
      return { dispose() { log.push(`runtime-dispose:${mesid}:${signal.aborted}:${signal.reason}`); } };
    },
    observeMessage(element) {
      const mesid = element.getAttribute('mesid');
      log.push(`observe:${mesid}`);
      return { disconnect() { log.push(`disconnect:${mesid}`); } };
    },
    decorateContent(content, signal) {
      log.push(`decorate:${content.isConnected}`);
      return () => log.push(`undecorate:${signal.reason}`);
    },
  };
}
