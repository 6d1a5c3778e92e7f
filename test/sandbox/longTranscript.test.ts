// The long-recording generator the caption tests and the benchmark share (sandbox/longTranscript.ts).
import { longText, longTranscript } from '../../sandbox/longTranscript';
import { readCaptions } from '../../nodes/Captioning/captions';

describe('longTranscript', () => {
	const threeHours = longTranscript(3);

	it('gives about 3 hours of speech in about 3,000 WebVTT cues, and every word in Google STT', () => {
		expect(threeHours.durationSeconds / 3600).toBeGreaterThan(2.8);
		expect(threeHours.durationSeconds / 3600).toBeLessThan(3.3);
		const cues = readCaptions('vtt', threeHours.vtt).cues;
		expect(cues.length).toBeGreaterThan(2800);
		expect(cues.length).toBeLessThan(3500);
		expect(readCaptions('google_stt', threeHours.googleStt).words).toHaveLength(
			threeHours.words.length,
		);
	});

	it('is the same for the same seed, and another recording for another', () => {
		expect(longText(200, 'a')).toBe(longText(200, 'a'));
		expect(longText(200, 'a')).not.toBe(longText(200, 'b'));
		expect(longText(200, 'a').split(' ')).toHaveLength(200);
		expect(longText(50)).toMatch(/^[A-ZÉÜZ][^]*[.?]$/);
	});
});
