// tests/viewer.js: the report page as a viewer, driven in headless Chromium
// through the DevTools protocol (tests/cdp.js).
//
//   node tests/viewer.js check CHROMIUM GTR TRACE PAGE SHOT.png
//     loads PAGE (gtr report of TRACE), zooms with the keyboard and the
//     mouse wheel, sets a 1 ms window where TRACE is busiest, and compares
//     the slices the page drew there with those `gtr dump --transitions
//     --from --to` gives for the same window: every one, with its
//     goroutine, start and end. Then clicks a slice (its goroutine is
//     selected), hovers one, checks the axis labels, and that the page had
//     no console message and fetched nothing. Writes a screenshot.
//   node tests/viewer.js load CHROMIUM PAGE
//     prints how long PAGE takes to load and draw, as one JSON line: the
//     wall time, the CPU seconds Chromium spent meanwhile (what the time
//     would be on an idle machine, about), and the page's own steps.
//   node tests/viewer.js shot CHROMIUM PAGE SHOT.png SECTION [FROM TO [G]]
//     a picture of one section of PAGE (its id: timeline, tasks, mmu...),
//     the timeline set to [FROM, TO] ns and goroutine G selected: how the
//     README's pictures are made (docs/shots.sh).
// Prints "ok ..." and "FAIL ..." lines; exits 1 on a failure.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { Browser } = require('./cdp.js');

let fails = 0;
function ok(what) { console.log('ok ' + what); }
function bad(what) { fails++; console.log('FAIL ' + what); }
function check(cond, what) { if (cond) ok(what); else bad(what); }

/* The slices of `gtr dump --transitions` output: [g, start, end or null] from Running to not. */
function slicesOf(text, running) {
	const out = [];
	for (const line of text.split('\n')) {
		const m = /^(\d+) G=(-?\d+) (\w+)->(\w+)/.exec(line);
		if (!m) continue;
		const ts = Number(m[1]), g = Number(m[2]), from = m[3], to = m[4];
		if (running.has(g) && to !== 'Running') {
			out.push([g, running.get(g), ts]);
			running.delete(g);
		} else if (!running.has(g) && to === 'Running') {
			running.set(g, ts);
		}
		void from;
	}
	return out;
}
/* A command's JSON, or null when it refuses the trace (tasks before go 1.11). */
function json(gtr, args) {
	try {
		return JSON.parse(execFileSync(gtr, args, { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
	} catch (e) {
		return null;
	}
}
function dump(gtr, trace, args) {
	return execFileSync(gtr, ['dump', '--transitions', ...args, trace], { maxBuffer: 1 << 30 }).toString();
}

async function open(chromium, page) {
	const b = new Browser(chromium);
	const p = await b.page();
	await p.init(1400, 1000);
	const t0 = Date.now(), cpu0 = b.cpuSeconds();
	await p.send('Page.navigate', { url: 'file://' + path.resolve(page) });
	const ready = await p.waitFor('document.body && document.body.dataset.ready === "1"', 120000);
	const ms = Date.now() - t0, cpu = Math.round((b.cpuSeconds() - cpu0) * 100) / 100;
	return { b, p, ready, ms, cpu };
}

async function load(chromium, page) {
	const { b, p, ready, ms, cpu } = await open(chromium, page);
	const inPage = ready ? await p.eval('performance.now()') : null;
	const errors = ready ? await p.eval('document.body.dataset.errors') : null;
	const steps = ready ? await p.eval('(function(){var o={};for(var k in gtrTimes)o[k]=Math.round(gtrTimes[k]);return o;})()') : null;
	console.log(JSON.stringify({ page, bytes: fs.statSync(page).size, ready, ready_ms: ms, cpu_s: cpu, in_page_ms: inPage && Math.round(inPage), script_ms: steps, errors, console: p.console.length }));
	await b.close();
	return ready && errors === '0' && p.console.length === 0;
}

async function shot(chromium, page, file, section, from, to, g) {
	const { b, p, ready } = await open(chromium, page);
	try {
		check(ready && await p.eval('document.body.dataset.errors') === '0', 'the page is drawn without error');
		if (from !== undefined) await p.eval('gtrTimelines[0].setView(' + Number(from) + ',' + Number(to) + ')');
		if (g !== undefined) await p.eval('gtrTimelines[0].select(' + Number(g) + ', -1)');
		const box = await p.eval('(function(){var e=document.getElementById(' + JSON.stringify(section) + ');if(!e)return null;var r=e.getBoundingClientRect();' +
			'return {x:r.left+window.scrollX,y:r.top+window.scrollY,width:r.width,height:r.height};})()');
		check(box !== null, 'the page has a section ' + section);
		if (box) await p.screenshot(file, box);
	} finally {
		await b.close();
	}
}

async function checkPage(chromium, gtr, trace, page, shot) {
	const { b, p, ready, ms } = await open(chromium, page);
	try {
		check(ready, 'the page is drawn (' + ms + ' ms)');
		if (!ready) return;
		check(await p.eval('document.body.dataset.errors') === '0', 'no error in the page: ' + await p.eval('gtrErrors.join("; ")'));
		check(await p.eval('!!gtrTimelines[0].zd'), 'the page holds the viewer\'s slices');
		await p.eval('document.querySelector("canvas.timeline").scrollIntoView({block: "start"})');
		const geo = await p.eval('(function(){var t=gtrTimelines[0],r=t.cv.getBoundingClientRect();return {x:r.left,y:r.top,left:t.left,plotW:t.plotW,end:t.end,v0:t.v0,v1:t.v1,ys:t.ys,prow:t.prow,rowTop:t.ys.length?t.ys[0].y:0};})()');
		const X = (tm, v0, v1) => geo.x + geo.left + (tm - v0) / (v1 - v0) * geo.plotW;
		const view = () => p.eval('[gtrTimelines[0].v0, gtrTimelines[0].v1]');

		// The busiest 1 ms of the trace, from the whole dump.
		const all = slicesOf(dump(gtr, trace, []), new Map());
		const starts = all.map((s) => s[1]).sort((a, c) => a - c);
		let best = 0, at = 0;
		for (let i = 0, j = 0; i < starts.length; i++) {
			while (starts[i] - starts[j] > 1e6) j++;
			if (i - j + 1 > best) { best = i - j + 1; at = starts[j]; }
		}
		const A = Math.max(0, Math.min(Math.round(at) - 100000, Math.floor(geo.end) - 1000000));
		const center = A + 500000;

		// Keyboard: w zooms in at the mouse, s out, a/d pan.
		const y = geo.y + geo.rowTop + 5;
		await p.mouse('mouseMoved', X(center, geo.v0, geo.v1), y);
		let [v0, v1] = await view();
		let presses = 0, shrank = true;
		while (v1 - v0 > 1.2e6 && presses < 120) {
			await p.key('w');
			const [n0, n1] = await view();
			if (!(n1 - n0 < v1 - v0)) shrank = false;
			[v0, v1] = [n0, n1];
			presses++;
		}
		check(shrank && v1 - v0 <= 1.2e6, 'w zooms in (' + presses + ' presses to ' + Math.round(v1 - v0) + ' ns)');
		check(center >= v0 && center <= v1, 'w zooms at the mouse: the busy window is still in view');
		await p.key('s');
		let [s0, s1] = await view();
		check(s1 - s0 > (v1 - v0) * 1.1, 's zooms out');
		await p.key('a');
		const [a0] = await view();
		check(a0 < s0 || s0 === 0, 'a pans left');
		await p.key('d');
		await p.key('d');
		const [d0] = await view();
		check(d0 > a0, 'd pans right');

		// The mouse wheel zooms about the pointer.
		[v0, v1] = await view();
		const mx = geo.x + geo.left + geo.plotW * 0.3, tUnder = v0 + 0.3 * (v1 - v0);
		await p.mouse('mouseWheel', mx, y, { deltaX: 0, deltaY: -300 });
		let [w0, w1] = await view();
		const tAfter = w0 + 0.3 * (w1 - w0);
		check(w1 - w0 < (v1 - v0) * 0.9 && Math.abs(tAfter - tUnder) <= (w1 - w0) / geo.plotW * 2, 'the wheel zooms in about the pointer');
		await p.mouse('mouseWheel', mx, y, { deltaX: 0, deltaY: 300 });
		[w0, w1] = await view();
		check(Math.abs((w1 - w0) - (v1 - v0)) < (v1 - v0) * 0.05, 'the wheel zooms back out');

		// A window of exactly 1 ms: the slices drawn against gtr dump's.
		const B = A + 1000000;
		await p.eval('gtrTimelines[0].setView(' + A + ',' + B + ')');
		const drawn = await p.eval('gtrTimelines[0].drawnList');
		const run = new Map();
		if (A > 0) slicesOf(dump(gtr, trace, ['--to', String(A - 1) + 'ns']), run); // the goroutines running at A
		const inWin = slicesOf(dump(gtr, trace, ['--from', String(A) + 'ns', '--to', String(B) + 'ns']), run);
		for (const [g, st] of run) inWin.push([g, st, null]); // still running at B
		const key = (g, st) => g + '@' + st;
		const page2 = new Map(drawn.map((d) => [key(d[1], d[2]), d]));
		// A page that holds only the longest slices must hold every one longer than exact_above_ns.
		const exact = await p.eval('gtrTimelines[0].zd.kept < gtrTimelines[0].zd.total ? gtrTimelines[0].zd.exact : -1');
		const fullEnd = new Map(all.map((s) => [key(s[0], s[1]), s[2]]));
		if (exact >= 0) {
			// The page holds the longest slices: none it holds is shorter than the longest it left out.
			const shortest = await p.eval('(function(){var z=gtrTimelines[0].zd,m=Infinity;for(var k in z.rows){var r=z.rows[k];for(var i=0;i<r.n;i++)m=Math.min(m,r.end[i]-r.start[i]);}return m;})()');
			check(shortest >= exact, 'the page holds the ' + await p.eval('gtrTimelines[0].zd.kept') + ' longest slices: the shortest is ' + shortest + ' ns, the longest left out ' + exact + ' ns');
		}
		let missing = 0, wrongEnd = 0, firstBad = '', shorter = 0;
		for (const [g, st, en] of inWin) {
			const d = page2.get(key(g, st));
			const end = fullEnd.has(key(g, st)) ? fullEnd.get(key(g, st)) : Infinity;
			if (!d && exact >= 0 && end - st <= exact) { shorter++; continue; }
			if (!d) { missing++; if (!firstBad) firstBad = 'G' + g + ' from ' + st; continue; }
			if (en === null ? d[3] < B : d[3] !== en) { wrongEnd++; if (!firstBad) firstBad = 'G' + g + ' ends ' + d[3] + ', dump ' + en; }
			page2.delete(key(g, st));
		}
		check(inWin.length > 0 && missing === 0 && wrongEnd === 0,
			'every slice of gtr dump in [' + A + ', ' + B + ']' + (exact >= 0 ? ' longer than ' + exact + ' ns' : '') +
			' is drawn with its goroutine, start and end (' + (inWin.length - shorter) + ' slices' + (exact >= 0 ? ', ' + shorter + ' shorter ones shaded' : '') +
			(missing || wrongEnd ? '; ' + missing + ' missing, ' + wrongEnd + ' wrong end, first: ' + firstBad : '') + ')');
		check(page2.size === 0, 'the page draws no slice gtr dump does not have in the window (' + page2.size + ' extra' +
			(page2.size ? ': ' + JSON.stringify([...page2.values()][0]) : '') + ')');

		// Axis labels: as many as fit, all different.
		const labels = await p.eval('gtrTimelines[0].axisLabels');
		check(labels.length >= 3 && new Set(labels).size === labels.length, 'axis labels all differ: ' + labels.join(', '));
		await p.eval('gtrTimelines[0].setView(gtrTimelines[0].end - 2000, gtrTimelines[0].end)');
		const fine = await p.eval('gtrTimelines[0].axisLabels');
		check(fine.length >= 3 && new Set(fine).size === fine.length, 'axis labels of a 2 us window at the end differ: ' + fine.join(', '));
		await p.eval('gtrTimelines[0].setView(' + A + ',' + B + ')');

		// Hover and click the widest slice drawn.
		let wide = null;
		for (const d of drawn) if (!wide || Math.min(d[3], B) - Math.max(d[2], A) > Math.min(wide[3], B) - Math.max(wide[2], A)) wide = d;
		if (wide) {
			const cx = X((Math.max(wide[2], A) + Math.min(wide[3], B)) / 2, A, B);
			const row = geo.ys[geo.prow[wide[0]]];
			const cy = geo.y + row.y + row.h / 2;
			await p.mouse('mouseMoved', cx, cy);
			const tip = await p.eval('gtrTimelines[0].tip.style.display === "block" ? gtrTimelines[0].tip.textContent : ""');
			check(tip.indexOf('G' + wide[1] + ' ') === 0 && /ended: /.test(tip) && /P-?\d+|no P/.test(tip), 'hovering a slice names its goroutine, function, P, duration and end: ' + JSON.stringify(tip));
			await p.mouse('mousePressed', cx, cy, { button: 'left', clickCount: 1 });
			await p.mouse('mouseReleased', cx, cy, { button: 'left', clickCount: 1 });
			const sel = await p.eval('gtrTimelines[0].sel && {g: gtrTimelines[0].sel.g, n: gtrTimelines[0].sel.list.length, info: gtrTimelines[0].info.textContent}');
			check(sel && sel.g === wide[1] && sel.n >= 1 && sel.info.indexOf('G' + wide[1]) === 0, 'clicking a slice selects its goroutine (' + JSON.stringify(sel) + ')');
			const want = all.filter((s) => s[0] === wide[1] && (exact < 0 || s[2] - s[1] > exact)).length;
			check(sel && (exact < 0 ? sel.n === want : sel.n >= want), 'the selection holds all ' + want + ' slices of G' + wide[1] + ' (page: ' + (sel && sel.n) + ')');
			await p.mouse('mouseMoved', cx, cy);
			if (shot) {
				await p.eval('(function(){var c=gtrTimelines[0].cv.closest("section");c.scrollIntoView({block:"start"});window.scrollBy(0,-34);})()');
				await p.screenshot(shot);
			}
			await p.eval('gtrTimelines[0].follow(1)');
			const at = await p.eval('gtrTimelines[0].sel.at');
			check(sel && (sel.n === 1 || at >= 1), 'next follows the goroutine to its next slice');
			await p.key('Escape');
			check(await p.eval('gtrTimelines[0].sel === null'), 'Escape clears the selection');
		} else {
			bad('no slice drawn in the window');
		}
		// Tasks and regions: the lanes draw the instances gtr tasks and gtr regions list.
		const maxTop = await p.eval('gtrTimelines[0].tr.annot ? gtrTimelines[0].tr.annot.top : 1');
		const tasks = json(gtr, ['tasks', '--json', '-n', String(maxTop), trace]);
		const regions = json(gtr, ['regions', '--json', '-n', String(maxTop), trace]);
		await p.eval('gtrTimelines[0].setView(0, gtrTimelines[0].end)');
		const lanesDrawn = await p.eval('gtrTimelines[0].annotDrawn');
		const laneSet = (name) => lanesDrawn.filter((d) => d[0] === name).map((d) => JSON.stringify(d.slice(1, 6))).sort();
		if (!tasks) {
			check(lanesDrawn.length === 0 && await p.eval('gtrTimelines[0].tr.annot === null'), 'no task or region lane for a trace gtr tasks refuses');
		} else {
			const want = tasks.top.map((k) => JSON.stringify([k.id, k.g, k.start_ns, k.end_ns, k.type])).sort();
			const got = laneSet('tasks');
			check(JSON.stringify(got) === JSON.stringify(want), 'the tasks lane draws the ' + want.length + ' tasks of gtr tasks --json (' + got.length + ' drawn' +
				(JSON.stringify(got) === JSON.stringify(want) ? '' : '; first differing: ' + got.find((x) => !want.includes(x)) + ' / ' + want.find((x) => !got.includes(x))) + ')');
			const wantR = regions.top.map((r) => JSON.stringify([r.task, r.g, r.start_ns, r.end_ns, r.type])).sort();
			const gotR = laneSet('regions');
			check(JSON.stringify(gotR) === JSON.stringify(wantR), 'the regions lane draws the ' + wantR.length + ' regions of gtr regions --json (' + gotR.length + ' drawn' +
				(JSON.stringify(gotR) === JSON.stringify(wantR) ? '' : '; first differing: ' + gotR.find((x) => !wantR.includes(x)) + ' / ' + wantR.find((x) => !gotR.includes(x))) + ')');
			const types = await p.eval('gtrTimelines[0].tr.annot.task_types.map(function (t) { return [t[0], t[1], t[3], t[4], t[6], t[7]]; })');
			check(JSON.stringify(types) === JSON.stringify(tasks.types.map((t) => [t.type, t.count, t.total_ns, t.p50_ns, t.p99_ns, t.max_ns])),
				'the page\'s task types have the counts and durations of gtr tasks (' + types.length + ' types)');
			const rows = await p.eval('document.querySelectorAll("#tasks table.annot-top tbody tr.row").length');
			check(rows === Math.min(20, tasks.top.length) + Math.min(20, regions.top.length), 'the tasks section lists the longest tasks and regions (' + rows + ' rows)');
			if (want.length) {
				// Hover the longest task in its lane, then click it: its goroutine is selected.
				await p.eval('gtrTimelines[0].cv.scrollIntoView({block: "start"})');
				const hit = await p.eval('(function(){var t=gtrTimelines[0],li=-1,r=t.cv.getBoundingClientRect();t.lanes.forEach(function(l,i){if(l.name==="tasks")li=i;});var it=t.annot.tasks[0];' +
					'var x=t.x((it.start+it.end)/2),ly=t.laneYs[li],lh=(ly.h-4)/t.lanes[li].levels;return {x:r.left+x,y:r.top+ly.y+2+it.level*lh+lh/2,id:it.id,g:it.g};})()');
				await p.mouse('mouseMoved', hit.x, hit.y);
				const tip = await p.eval('gtrTimelines[0].tip.style.display === "block" ? gtrTimelines[0].tip.textContent : ""');
				check(tip.indexOf('task ' + hit.id + ' ') === 0, 'hovering the longest task in its lane names it: ' + JSON.stringify(tip));
				await p.mouse('mousePressed', hit.x, hit.y, { button: 'left', clickCount: 1 });
				await p.mouse('mouseReleased', hit.x, hit.y, { button: 'left', clickCount: 1 });
				check(await p.eval('gtrTimelines[0].sel && gtrTimelines[0].sel.g') === hit.g, 'clicking a task selects the goroutine that began it (G' + hit.g + ')');
				await p.key('Escape');
			}
		}

		// The MMU plot: the points of gtr mmu --json.
		const mmu = json(gtr, ['mmu', '--json', trace]);
		const plotted = await p.eval('gtrTimelines[0].mmu.drawn');
		const curve = mmu ? mmu.curve.map((c) => [c.window_ns, c.mmu]) : null;
		check(curve && curve.length > 0 && JSON.stringify(plotted) === JSON.stringify(curve), 'the MMU plot has the ' + (curve ? curve.length : 0) +
			' points of gtr mmu --json (' + plotted.length + ' plotted' + (curve && JSON.stringify(plotted) !== JSON.stringify(curve) ? ': ' + JSON.stringify(plotted.slice(0, 3)) + ' vs ' + JSON.stringify(curve.slice(0, 3)) : '') + ')');
		check(Number(await p.eval('document.querySelector("canvas.mmu").dataset.points')) === plotted.length, 'the MMU canvas says it drew them');

		const lanes = await p.eval('gtrTimelines[0].cv.dataset.lanes');
		check(Number(lanes) >= 3, 'lanes of GOMAXPROCS and counters are drawn (' + lanes + ')');
		check(await p.eval('document.body.dataset.errors') === '0' && await p.eval('gtrErrors.length') === 0, 'no error after the interaction');
		check(p.console.length === 0, 'no console message: ' + p.console.slice(0, 3).join(' | '));
		const outside = p.requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'));
		check(outside.length === 0, 'nothing fetched from outside the file: ' + outside.slice(0, 3).join(' '));
	} finally {
		await b.close();
	}
}

(async () => {
	const [mode, ...a] = process.argv.slice(2);
	try {
		if (mode === 'load') { if (!await load(a[0], a[1])) fails++; }
		else if (mode === 'check') await checkPage(a[0], a[1], a[2], a[3], a[4]);
		else if (mode === 'shot') await shot(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
		else { console.log('usage: viewer.js check CHROMIUM GTR TRACE PAGE SHOT | load CHROMIUM PAGE | shot CHROMIUM PAGE SHOT SECTION [FROM TO [G]]'); process.exit(2); }
	} catch (e) {
		bad('the test broke: ' + (e && e.stack || e));
	}
	process.exit(fails ? 1 : 0);
})();
