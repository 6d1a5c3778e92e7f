// A small caption-file server on 127.0.0.1 for the downloads phase: the sandbox's own files, served with
// the Content-Disposition values real file servers send (and misspell), or not served at all (404, 500,
// a reset connection, an answer that never comes). Its URLs go into the events' `transcriptions[]`.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

/** How a file URL of this server answers. */
export type FileBehaviour = 'ok' | 'empty' | '404' | '500' | 'reset' | 'hang';

const latin1 = (text: string) => Buffer.from(text, 'latin1').toString('latin1');
/** A header value whose bytes are UTF-8, as many servers send them (HTTP headers are bytes). */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/** `undefined`: no Content-Disposition header; the node then names the file after the title. */
export const CONTENT_DISPOSITIONS: ReadonlyArray<string | undefined> = [
	undefined,
	'attachment; filename="Q3 50% update.vtt"',
	'attachment; filename="100%.vtt"',
	'attachment; filename="%"',
	"attachment; filename*=UTF-8''%E0%A4%A.vtt",
	"attachment; filename*=UTF-8''%F0%9F%8E%AC%20launch.vtt",
	"attachment; filename*=iso-8859-1'en'%A3%20rates.vtt",
	'attachment; filename="fallback.vtt"; filename*=UTF-8\'\'%E2%82%AC%20rates.vtt',
	latin1('attachment; filename="caf\u00e9.vtt"'),
	utf8Bytes('attachment; filename="日本語.vtt"'),
	'attachment; filename="a/b\\\\c.vtt"',
	'attachment; filename="../../etc/passwd"',
	'attachment; filename=unquoted.vtt',
	'attachment; filename=""',
	'attachment; filename=" "',
	'attachment; filename="with;semicolon.vtt"',
	'ATTACHMENT; FILENAME="UPPER.VTT"',
	`attachment; filename="${'long-'.repeat(60)}.vtt"`,
	'attachment',
	'inline',
];

export interface FileServer {
	url: string;
	/** A URL (shaped like a signed one) that answers as `behaviour` says. */
	urlFor(behaviour: FileBehaviour, format: string, disposition?: number, id?: string): string;
	/** Requests served so far, per behaviour. */
	readonly hits: Record<FileBehaviour, number>;
	close(): Promise<void>;
}

export async function startFileServer(content: Record<string, string>): Promise<FileServer> {
	const sockets = new Set<Socket>();
	const hits: Record<FileBehaviour, number> = {
		ok: 0,
		empty: 0,
		'404': 0,
		'500': 0,
		reset: 0,
		hang: 0,
	};
	const fileResponse = (res: ServerResponse, format: string, disposition: string | undefined) => {
		const body = content[format] ?? '';
		res.setHeader(
			'content-type',
			format === 'vtt' ? 'text/vtt; charset=utf-8' : 'application/json',
		);
		res.setHeader('content-length', Buffer.byteLength(body));
		// set apart: writeHead() with an object refuses the bytes above 0x7f that setHeader() lets through
		if (disposition !== undefined) res.setHeader('content-disposition', disposition);
		res.writeHead(200);
		res.end(body);
	};
	const server: Server = createServer((req, res) => {
		req.resume();
		// /<behaviour>/<disposition index>/<id>/<format>?expires=…&signature=…
		const [, behaviour, index, , format] = new URL(req.url ?? '/', 'http://files').pathname.split(
			'/',
		);
		if (!(behaviour in hits)) {
			res.writeHead(400).end();
			return;
		}
		hits[behaviour as FileBehaviour]++;
		switch (behaviour as FileBehaviour) {
			case 'ok':
				return fileResponse(res, format, CONTENT_DISPOSITIONS[Number(index)]);
			case 'empty':
				res.writeHead(200, { 'content-type': 'text/vtt', 'content-length': 0 }).end();
				return;
			case '404':
				res.writeHead(404, { 'content-type': 'application/xml' });
				res.end('<Error><Code>NoSuchKey</Code></Error>');
				return;
			case '500':
				res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
				return;
			case 'reset':
				req.socket.destroy();
				return;
			case 'hang':
				// never answers: the download's own timeout must end the wait
				return;
		}
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const url = `http://127.0.0.1:${port}`;
	let counter = 0;
	return {
		url,
		hits,
		urlFor(behaviour, format, disposition = 0, id = String(++counter)) {
			return `${url}/${behaviour}/${disposition}/${id}/${format}?expires=1767225600&signature=${id}`;
		},
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
