// Preloaded (node --import) into a node process to play a machine whose clock is off: Date.now() reads
// TEST_CLOCK_SKEW_MS (may be negative) ahead of the true time. The machine's clock is the outside world.
const skew = Number(process.env.TEST_CLOCK_SKEW_MS ?? 0);
const trueNow = Date.now.bind(Date);
Date.now = () => trueNow() + skew;
