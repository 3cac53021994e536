// tests/cdp.js: a small client of the Chrome DevTools protocol over
// --remote-debugging-pipe (fd 3 to the browser, fd 4 from it; messages are
// JSON, each ended by a NUL byte). No network port, no package: Node only.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

class Browser {
	constructor(chromium, extra) {
		this.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gtr-cdp-'));
		const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync',
			'--hide-scrollbars', '--remote-debugging-pipe', '--user-data-dir=' + this.profile,
			'--window-size=1400,1000', ...(extra || []), 'about:blank'];
		this.proc = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
		this.stderr = '';
		this.proc.stderr.on('data', (d) => { this.stderr += d; });
		this.next = 1;
		this.waiting = new Map();
		this.listeners = [];
		let buf = Buffer.alloc(0);
		this.proc.stdio[4].on('data', (d) => {
			buf = Buffer.concat([buf, d]);
			let i;
			while ((i = buf.indexOf(0)) >= 0) {
				const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
				buf = buf.subarray(i + 1);
				this.dispatch(msg);
			}
		});
		this.exited = new Promise((res) => this.proc.on('exit', res));
	}
	dispatch(msg) {
		if (msg.id && this.waiting.has(msg.id)) {
			const w = this.waiting.get(msg.id);
			this.waiting.delete(msg.id);
			if (msg.error) w.reject(new Error(w.method + ': ' + JSON.stringify(msg.error)));
			else w.resolve(msg.result);
			return;
		}
		for (const l of this.listeners) l(msg);
	}
	send(method, params, sessionId) {
		const id = this.next++;
		const msg = { id, method, params: params || {} };
		if (sessionId) msg.sessionId = sessionId;
		this.proc.stdio[3].write(JSON.stringify(msg) + '\0');
		return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject, method }));
	}
	on(fn) { this.listeners.push(fn); }
	/* CPU seconds the browser's processes have used (Linux: those whose command line names its profile). */
	cpuSeconds() {
		let ticks = 0;
		for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
			try {
				if (!fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes(this.profile)) continue;
				const f = fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ');
				ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
			} catch (e) { /* gone meanwhile */ }
		}
		return ticks / 100; // USER_HZ
	}
	async page() {
		const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
		const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
		return new Page(this, sessionId);
	}
	async close() {
		try { await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 3000))]); } catch (e) { /* gone already */ }
		this.proc.kill();
		await this.exited;
		try { fs.rmSync(this.profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }); } catch (e) { /* a crash reporter may still write there */ }
	}
}

class Page {
	constructor(b, sid) {
		this.b = b;
		this.sid = sid;
		this.console = [];
		this.requests = [];
		b.on((m) => {
			if (m.sessionId !== sid) return;
			if (m.method === 'Runtime.consoleAPICalled')
				this.console.push(m.params.type + ': ' + m.params.args.map((a) => a.value !== undefined ? a.value : a.description).join(' '));
			else if (m.method === 'Runtime.exceptionThrown')
				this.console.push('exception: ' + (m.params.exceptionDetails.exception ? m.params.exceptionDetails.exception.description : m.params.exceptionDetails.text));
			else if (m.method === 'Log.entryAdded')
				this.console.push('log ' + m.params.entry.level + ': ' + m.params.entry.text);
			else if (m.method === 'Network.requestWillBeSent')
				this.requests.push(m.params.request.url);
		});
	}
	send(method, params) { return this.b.send(method, params, this.sid); }
	async init(width, height) {
		await this.send('Runtime.enable');
		await this.send('Log.enable');
		await this.send('Page.enable');
		await this.send('Network.enable');
		await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
	}
	async eval(expr) {
		const r = await this.send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
		if (r.exceptionDetails) throw new Error('in the page: ' + (r.exceptionDetails.exception ? r.exceptionDetails.exception.description : r.exceptionDetails.text));
		return r.result.value;
	}
	async waitFor(expr, ms) {
		const until = Date.now() + ms;
		for (;;) {
			if (await this.eval(expr)) return true;
			if (Date.now() > until) return false;
			await new Promise((r) => setTimeout(r, 20));
		}
	}
	async key(k) {
		const named = { Escape: 27 };
		const vk = named[k] || k.toUpperCase().charCodeAt(0), code = named[k] ? k : 'Key' + k.toUpperCase();
		const down = { type: named[k] ? 'rawKeyDown' : 'keyDown', key: k, code, windowsVirtualKeyCode: vk };
		if (!named[k]) down.text = k;
		await this.send('Input.dispatchKeyEvent', down);
		await this.send('Input.dispatchKeyEvent', { type: 'keyUp', key: k, code, windowsVirtualKeyCode: vk });
	}
	mouse(type, x, y, extra) { return this.send('Input.dispatchMouseEvent', Object.assign({ type, x, y }, extra || {})); }
	async screenshot(file, clip) {
		const r = await this.send('Page.captureScreenshot', clip ? { format: 'png', clip: Object.assign({ scale: 1 }, clip), captureBeyondViewport: true } : { format: 'png' });
		fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
	}
}

module.exports = { Browser };
