// The Luker-style plugin fixture (js/test/fixtures/luker-style-plugin.js,
// copied beside this file by the suite) as a SillyTavern extension: it gets
// Luker.getContext (which tavern-core provides in vanilla SillyTavern) and
// tavern-core's editor ops, and is steered through globalThis.__lukerPlugin.
// It declines until a test sets claim; it loads before the seed's example,
// so when it claims it wins.
import { installLukerStylePlugin, defaultControl } from './luker-style-plugin.js';
import * as ops from '../tavern-core/lib/editor-ops.js';

const control = { ...defaultControl(), claim: false, delayMs: 40 };
globalThis.__lukerPlugin = installLukerStylePlugin(() => globalThis.Luker.getContext(), { ops, control });
