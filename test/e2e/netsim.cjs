// Preloaded into the n8n under test (NODE_OPTIONS=--require) by the outbound suite: a small simulated network, so
// that every address class of the SSRF matrix can be tried on a machine whose servers listen on 127.0.0.1 only.
// CAPTIONING_NETSIM is JSON: `names` resolve as a hostile DNS would answer them (name → addresses), and a TCP
// connection to one of the `addresses` lands on 127.0.0.1 at the same port instead (a canary listens there). Nothing
// else changes: every other lookup and connection goes as it would.
'use strict';

const table = JSON.parse(process.env.CAPTIONING_NETSIM || '{}');
const names = table.names || {};
const addresses = new Set(table.addresses || []);

if (Object.keys(names).length > 0) {
	const dns = require('node:dns');
	const lookup = dns.lookup;
	const answer = (name, options) => {
		const all = (names[name] || []).map((address) => ({
			address,
			family: address.includes(':') ? 6 : 4,
		}));
		return options && options.all ? all : all[0];
	};
	dns.lookup = function (name, options, callback) {
		const done = typeof options === 'function' ? options : callback;
		const opts = typeof options === 'object' && options !== null ? options : {};
		if (!Object.prototype.hasOwnProperty.call(names, name)) return lookup.apply(this, arguments);
		const found = answer(name, opts);
		process.nextTick(() =>
			opts.all ? done(null, found) : done(null, found.address, found.family),
		);
		return undefined;
	};
	const promised = dns.promises.lookup;
	dns.promises.lookup = async function (name, options) {
		if (!Object.prototype.hasOwnProperty.call(names, name)) return promised.apply(this, arguments);
		return answer(name, options || {});
	};
}

if (addresses.size > 0) {
	const net = require('node:net');
	const connect = net.Socket.prototype.connect;
	net.Socket.prototype.connect = function (...args) {
		// net.createConnection hands connect its arguments normalised, as an array whose first member is the options
		const options = Array.isArray(args[0]) ? args[0][0] : args[0];
		if (options && typeof options === 'object' && addresses.has(options.host)) {
			options.host = '127.0.0.1';
			options.family = 4;
		}
		return connect.apply(this, args);
	};
}
