// Writes number-tostring.json: [bits of a double in hex, its JS toString()]
// for doubles over every magnitude, integers around 2^53 and the exponent
// cut-overs. Seeded, so the file is stable. Run: node number-tostring.gen.js
// > number-tostring.json
let s = 42;
const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
const xs = [];
for (let e = -330; e <= 310; e += 3) xs.push((r() * 9 + 1) * 10 ** e, -(r() * 9 + 1) * 10 ** e);
for (let i = 0; i < 60; i++) {
  const b = new Float64Array(1);
  const u = new Uint32Array(b.buffer);
  u[0] = r() * 2 ** 32; u[1] = r() * 2 ** 32;
  if (Number.isFinite(b[0])) xs.push(b[0]);
}
for (const x of [2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 60, 1e21, 1e21 - 65536, 999999999999999900000, 1e-6, 1e-7,
  1.5e-7, 0.000001234, 123.456, -0.5, 5e-324, Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, 1 / 3, 4.35, 1e15 + 0.3]) xs.push(x);
const rows = xs.map((x) => [new BigUint64Array(new Float64Array([x]).buffer)[0].toString(16), x.toString()]);
process.stdout.write(JSON.stringify(rows).replace(/\],\[/g, '],\n[') + '\n');
