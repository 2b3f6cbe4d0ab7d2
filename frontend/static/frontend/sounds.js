// Optional sounds of the table (off unless the player turns them on in the settings), made with
// WebAudio: short tones, no audio file. A sound is never the only sign of anything.
import { SOUNDS_KEY, preference } from "./preferences.js";

let context = null;

/** The tones of each sound: [frequency in Hz, start in s, length in s, wave]. */
const TONES = {
  move: [[660, 0, 0.06, "triangle"]],
  deal: [
    [520, 0, 0.05, "triangle"],
    [700, 0.06, 0.05, "triangle"],
  ],
  refused: [[180, 0, 0.14, "square"]],
  won: [
    [523.25, 0, 0.12, "sine"],
    [659.25, 0.12, 0.12, "sine"],
    [783.99, 0.24, 0.12, "sine"],
    [1046.5, 0.36, 0.3, "sine"],
  ],
};

/** Return whether this browser can make sounds. */
export function soundsPossible() {
  return typeof window.AudioContext === "function" || typeof window.webkitAudioContext === "function";
}

/** Play `kind` ("move", "deal", "refused", "won") if the player turned sounds on. */
export function playSound(kind) {
  const tones = TONES[kind];
  if (!tones || !preference(SOUNDS_KEY, false) || !soundsPossible()) return;
  try {
    context = context || new (window.AudioContext || window.webkitAudioContext)();
    if (context.state === "suspended") context.resume();
    const now = context.currentTime;
    for (const [frequency, start, length, wave] of tones) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = wave;
      oscillator.frequency.value = frequency;
      // A soft start and end: no click.
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.12, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(now + start);
      oscillator.stop(now + start + length + 0.02);
    }
    document.documentElement.dataset.lastSound = kind; // for the curious, and the tests
  } catch {
    // No sound (a browser that refuses audio): the table says everything in words anyway.
  }
}
