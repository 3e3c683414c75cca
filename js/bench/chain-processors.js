// The 3-processor chain both benches run (bench/chat-surface.js under Node,
// bench/chromium/surface.js in Chromium), for tavern-core's host and for the
// plain-JS chain alike: a badge wrapper (outermost), a highlighter, and
// macro expansion (innermost), each awaiting renderBase() once.
const WORLD = { char: 'Keeper', weather: 'rain' };
export const CHAIN = [
  { id: 'bench/badge', async prepare(ctx, renderBase) { return `<div class="badge" data-m="${ctx.mesid}">${await renderBase()}</div>`; } },
  { id: 'bench/highlight', async prepare(ctx, renderBase) { return (await renderBase()).replace(/rain/g, '<b>rain</b>'); } },
  { id: 'bench/macros', async prepare(ctx, renderBase) { return (await renderBase()).replace(/\{\{(\w+)\}\}/g, (a, k) => WORLD[k] ?? a); } },
];
