// Drives the `psxanim preview --serve` viewer in headless Debian chromium and checks what it draws.
// Usage: node viewer.test.mjs http://127.0.0.1:PORT/ [http://127.0.0.1:PORT2/ [http://127.0.0.1:PORT3/]]
// The optional second viewer shows a clip with event markers (an animation file on a skeleton), the
// third a textured character served with `--light`.
// (tooling/tests/preview_browser.rs starts the server and runs this.) Exits non-zero on any failure.
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const url = process.argv[2];
const markersUrl = process.argv[3];
const texturedUrl = process.argv[4];
if (!url) {
  console.error("usage: node viewer.test.mjs http://127.0.0.1:PORT/");
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
// A hung browser must not hang the test run.
setTimeout(() => {
  console.error("viewer test FAILED: no result after 240 s");
  process.exit(1);
}, 240000).unref();
const RIGID = "rigid-gte";

function check(ok, message) {
  if (!ok) throw new Error(message);
  console.log(`ok: ${message}`);
}

// Waits until every canvas shows the page's current state (`key(storage)` in the page).
async function settled(page) {
  await page.waitForFunction(() => viewer.info && viewer.info.storages.every((s) => viewer.drawn[s] === key(s)), null, { timeout: 20000 });
}

async function pixels(page, storage) {
  return page.evaluate((s) => {
    const c = viewer.views[s];
    return Array.from(c.getContext("2d").getImageData(0, 0, c.width, c.height).data);
  }, storage);
}

// How many pixels of `storage`'s canvas differ from the server's picture of what the page shows
// (/api/picture, decoded without colour conversion).
async function offServer(page, storage) {
  return page.evaluate(async (s) => {
    const bitmap = await getPicture(`/api/picture?${frameQuery(s)}`);
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext("2d");
    ctx.drawImage(bitmap, 0, 0);
    const want = ctx.getImageData(0, 0, c.width, c.height).data;
    const view = viewer.views[s];
    const got = view.getContext("2d").getImageData(0, 0, view.width, view.height).data;
    if (want.length !== got.length) return -1;
    let n = 0;
    for (let i = 0; i < want.length; i += 4) if (want[i] !== got[i] || want[i + 1] !== got[i + 1] || want[i + 2] !== got[i + 2]) n++;
    return n;
  }, storage);
}

async function last(page, storage) {
  return page.evaluate((s) => viewer.last[s], storage);
}

function parseColour(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

function near(px, i, colour, tolerance) {
  return Math.abs(px[i] - colour[0]) <= tolerance && Math.abs(px[i + 1] - colour[1]) <= tolerance && Math.abs(px[i + 2] - colour[2]) <= tolerance;
}

// Positions (x, y) of the pixels that differ between two RGBA buffers.
function differing(a, b, width) {
  const out = [];
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 6) out.push([(i / 4) % width, Math.floor(i / 4 / width)]);
  }
  return out;
}

// Whether (x, y) is inside triangle t ([x0, y0, x1, y1, x2, y2, ...]) or within `slack` of its edges.
function nearTriangle(t, x, y, slack) {
  if (x < Math.min(t[0], t[2], t[4]) - slack || x > Math.max(t[0], t[2], t[4]) + slack) return false;
  if (y < Math.min(t[1], t[3], t[5]) - slack || y > Math.max(t[1], t[3], t[5]) + slack) return false;
  const p = [[t[0], t[1]], [t[2], t[3]], [t[4], t[5]]];
  const cross = (a, b) => (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
  const c = [cross(p[0], p[1]), cross(p[1], p[2]), cross(p[2], p[0])];
  if (c.every((v) => v >= 0) || c.every((v) => v <= 0)) return true;
  for (let i = 0; i < 3; i++) {
    const a = p[i], b = p[(i + 1) % 3];
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const len2 = dx * dx + dy * dy || 1;
    const u = Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / len2));
    if (Math.hypot(a[0] + u * dx - x, a[1] + u * dy - y) <= slack) return true;
  }
  return false;
}

async function setScrub(page, frame) {
  await page.evaluate((f) => {
    const s = document.getElementById("scrub");
    s.value = String(f);
    s.dispatchEvent(new Event("input", { bubbles: true }));
  }, frame);
  await settled(page);
}

// Scrubs clip `clip` from frame 0 to the frame where its bones move most, and checks that the picture
// changes exactly where the moving bones' triangles are; with `needStill`, that a large area drawn
// only by bones that keep still does not change at all.
async function scrubCheck(page, clip, width, height, needStill) {
  await page.selectOption("#clip", String(clip));
  await settled(page);
  const frames = await page.evaluate((c) => viewer.info.clips[c].frames, clip);
  // Scrub to the frame whose triangles are farthest from frame 0 (asked of the server, not guessed).
  const frameA = 0;
  const frameB = await page.evaluate(async ([clip, frames]) => {
    const triangles = async (f) => (await (await fetch(`/api/frame?clip=${clip}&frame=${f}&yaw=${viewer.yaw}&pitch=${viewer.pitch}&zoom=${viewer.zoom}`)).json()).triangles;
    const first = new Map((await triangles(0)).map((t) => [t[10], t]));
    let best = 1, bestMove = -1;
    for (let f = 1; f < frames; f++) {
      let move = 0;
      for (const t of await triangles(f)) {
        const a = first.get(t[10]);
        if (a) for (let k = 0; k < 6; k++) move = Math.max(move, Math.abs(a[k] - t[k]));
      }
      if (move > bestMove) { best = f; bestMove = move; }
    }
    return best;
  }, [clip, frames]);
  const pxA = await pixels(page, RIGID);
  const trianglesOfA = (await last(page, RIGID)).triangles;
  await setScrub(page, frameB);
  check((await page.textContent("#frame")) === String(frameB), `the frame number shows ${frameB}`);
  const pxB = await pixels(page, RIGID);
  const trianglesOfB = (await last(page, RIGID)).triangles;
  const diff = differing(pxA, pxB, width);
  check(diff.length > 100, `scrubbing clip ${clip} ${frameA} -> ${frameB} changes ${diff.length} pixels`);
  // A bone moves when any of its triangles lands elsewhere on screen (matched by triangle index).
  const where = new Map(trianglesOfA.map((t) => [t[10], t]));
  const moved = new Set();
  for (const t of trianglesOfB) {
    const a = where.get(t[10]);
    if (!a || [0, 1, 2, 3, 4, 5].some((k) => Math.abs(a[k] - t[k]) > 1)) moved.add(t[9]);
  }
  for (const t of trianglesOfA) if (!trianglesOfB.some((b) => b[10] === t[10])) moved.add(t[9]);
  check(moved.size > 0, `bones that move between the frames: ${[...moved].join(", ")}`);
  // The changed pixels must lie on triangles of the moved bones, in either frame ...
  const movedTriangles = [...trianglesOfA, ...trianglesOfB].filter((t) => moved.has(t[9]));
  const stillTriangles = [...trianglesOfA, ...trianglesOfB].filter((t) => !moved.has(t[9]));
  const within = diff.filter(([x, y]) => movedTriangles.some((t) => nearTriangle(t, x, y, 0))).length;
  check(within === diff.length, `${within} of ${diff.length} changed pixels lie on the moved bones' triangles`);
  // ... and where only bones that keep still are drawn, nothing changes.
  let still = 0, stillChanged = 0;
  const changed = new Set(diff.map(([x, y]) => y * width + x));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!stillTriangles.some((t) => nearTriangle(t, x, y, 0)) || movedTriangles.some((t) => nearTriangle(t, x, y, 2))) continue;
      still++;
      if (changed.has(y * width + x)) stillChanged++;
    }
  }
  check(stillChanged === 0 && (!needStill || still > 500), `${still} pixels covered only by still bones, ${stillChanged} of them changed`);
  return { frameB, pxB };
}

async function main() {
  const profile = mkdtempSync(join(tmpdir(), "psxanim-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  // Nothing but the local server may be contacted (the page is self-contained).
  const origins = [url, markersUrl, texturedUrl].filter(Boolean).map((u) => new URL(u).origin);
  const foreign = [];
  await context.route("**/*", (route) => {
    if (origins.includes(new URL(route.request().url()).origin)) return route.continue();
    foreign.push(route.request().url());
    return route.abort();
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(new URL("/?play=0", url).href);
    await settled(page);
    const info = await page.evaluate(() => viewer.info);
    const { width, height } = info;
    const background = parseColour(info.background);
    check(info.storages.includes(RIGID), `storage modes side by side: ${info.storages.join(", ")}`);

    // 1. The character is drawn, inside the bounds of the projected triangles and nowhere else.
    for (const storage of info.storages) {
      const px = await pixels(page, storage);
      const b = (await last(page, storage)).bounds;
      check(Array.isArray(b), `${storage}: the frame has projected triangles`);
      let inside = 0, outside = 0;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          if (near(px, 4 * (y * width + x), background, 2)) continue;
          if (x >= b[0] - 1 && x <= b[2] + 1 && y >= b[1] - 1 && y <= b[3] + 1) inside++;
          else outside++;
        }
      }
      const area = (b[2] - b[0] + 1) * (b[3] - b[1] + 1);
      check(inside > 0.05 * area && inside > 300, `${storage}: ${inside} character pixels within the projected bounds ${b} (box ${area} px)`);
      check(outside === 0, `${storage}: no drawn pixel outside the projected bounds (${outside})`);
      // Drawn with the GPU's fill rule, not antialiased: only the background and material colours.
      const allowed = new Set([background.join(","), ...(await last(page, storage)).triangles.map((t) => `${t[6]},${t[7]},${t[8]}`)]);
      const stray = new Set();
      for (let i = 0; i < px.length; i += 4) {
        const c = `${px[i]},${px[i + 1]},${px[i + 2]}`;
        if (!allowed.has(c)) stray.add(c);
      }
      check(stray.size === 0, `${storage}: every pixel is the background or a material colour (stray: ${[...stray].slice(0, 5).join(" ")})`);
    }

    // 2. Scrubbing changes the picture where the moving bones are.
    const walk = info.clips.findIndex((c) => c.name === "Walk");
    check(walk >= 0, "the fixture has a Walk clip");
    const { frameB, pxB } = await scrubCheck(page, walk, width, height, false);

    // 3. The clip selector switches clips.
    const turn = info.clips.findIndex((c) => c.name === "Turn");
    check(turn >= 0 && turn !== walk, "the fixture has a Turn clip");
    await page.selectOption("#clip", String(turn));
    await settled(page);
    const shown = await last(page, RIGID);
    check(shown.clip === turn && shown.frame === 0, `the viewer now shows clip ${shown.clip} frame ${shown.frame}`);
    const max = Number(await page.getAttribute("#scrub", "max"));
    check(max === info.clips[turn].frames - 1, `the scrub bar spans Turn's ${info.clips[turn].frames} frames`);
    await setScrub(page, frameB);
    const pxTurn = await pixels(page, RIGID);
    const clipDiff = differing(pxB, pxTurn, width).length;
    check(clipDiff > 100, `Turn frame ${frameB} differs from Walk frame ${frameB} in ${clipDiff} pixels`);

    // 4. The skeleton toggle changes the picture (bone lines appear).
    const bone = parseColour(info.boneColour);
    const countBone = (px) => { let n = 0; for (let i = 0; i < px.length; i += 4) if (near(px, i, bone, 40)) n++; return n; };
    const before = await pixels(page, RIGID);
    await page.check("#bones");
    await settled(page);
    const after = await pixels(page, RIGID);
    const toggled = differing(before, after, width).length;
    check(toggled > 20, `the skeleton toggle changes ${toggled} pixels`);
    check(countBone(after) > 20 && countBone(before) === 0, `bone-coloured pixels: ${countBone(before)} without, ${countBone(after)} with the skeleton`);
    await page.uncheck("#bones");
    await settled(page);
    check(differing(before, await pixels(page, RIGID), width).length === 0, "turning the skeleton off restores the picture");

    // 5. Each canvas is the server's picture, pixel for pixel.
    for (const storage of info.storages) {
      const off = await offServer(page, storage);
      check(off === 0, `${storage}: the canvas is the server's picture (${off} pixels differ)`);
    }

    // 6. The light toggle lights the rigid-gte character (tables with normals) where it is drawn, and
    // says that baked-vertices, without normals, stays unlit.
    check(info.light.some((l) => l.name === "light" && l.on === false), "the light starts off");
    const dark = await pixels(page, RIGID);
    const box = (await last(page, RIGID)).bounds;
    await page.check("#light-light");
    await settled(page);
    const lit = await pixels(page, RIGID);
    const litDiff = differing(dark, lit, width);
    const outsideBox = litDiff.filter(([x, y]) => x < box[0] - 1 || x > box[2] + 1 || y < box[1] - 1 || y > box[3] + 1).length;
    check(litDiff.length > 500 && outsideBox === 0, `the light changes ${litDiff.length} pixels, ${outsideBox} outside the character's box`);
    check((await last(page, RIGID)).lit === true, "rigid-gte is drawn lit");
    for (const storage of info.storages) {
      const off = await offServer(page, storage);
      check(off === 0, `${storage} lit: the canvas is the server's picture (${off} pixels differ)`);
      const caption = await page.textContent(`figure:has(#view-${storage}) figcaption`);
      check(caption.includes("unlit") === !info.lightable[storage], `${storage} caption: "${caption}"`);
    }
    await page.uncheck("#light-light");
    await settled(page);
    check(differing(dark, await pixels(page, RIGID), width).length === 0, "turning the light off restores the picture");

    // 7. Event markers sit on the scrub bar at their frames; scrubbing a clip that moves one arm
    // changes that arm and nothing else.
    if (markersUrl) {
      await page.goto(new URL("/?play=0", markersUrl).href);
      await settled(page);
      await scrubCheck(page, 0, width, height, true);
      const clip = await page.evaluate(() => viewer.info.clips[viewer.clip]);
      check(clip.events.length > 0, `clip ${clip.name} has ${clip.events.length} event(s)`);
      const markers = await page.$$eval(".marker", (ms) => ms.map((m) => ({ title: m.title, left: parseFloat(m.style.left) })));
      check(markers.length === clip.events.length, `${markers.length} marker(s) on the scrub bar`);
      clip.events.forEach((e, i) => {
        const left = (100 * e.frame) / (clip.frames - 1);
        check(markers[i].title.includes(e.name) && Math.abs(markers[i].left - left) < 0.01, `marker "${markers[i].title}" at ${markers[i].left.toFixed(1)}%`);
      });
    }

    // 8. A textured character served with --light: the page starts lit and shows the server's picture,
    // texels and all (colours no triangle's material has).
    if (texturedUrl) {
      await page.goto(new URL("/?play=0", texturedUrl).href);
      await settled(page);
      check(await page.isChecked("#light-light"), "--light: the light toggle starts on");
      check((await last(page, RIGID)).lit === true, "the textured character is drawn lit");
      const off = await offServer(page, RIGID);
      check(off === 0, `textured: the canvas is the server's picture (${off} pixels differ)`);
      const px = await pixels(page, RIGID);
      const flat = new Set([background.join(","), ...(await last(page, RIGID)).triangles.map((t) => `${t[6]},${t[7]},${t[8]}`)]);
      let texels = 0;
      for (let i = 0; i < px.length; i += 4) if (!flat.has(`${px[i]},${px[i + 1]},${px[i + 2]}`)) texels++;
      check(texels > 300, `textured: ${texels} pixels of texel or shaded colours`);
    }

    check(errors.length === 0, `no script errors (${errors.join("; ")})`);
    check(foreign.length === 0, `no request outside ${origins.join(", ")} (${foreign.join(", ")})`);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => console.log("viewer test passed"),
  (e) => {
    console.error(`viewer test FAILED: ${e.message}`);
    process.exit(1);
  },
);
