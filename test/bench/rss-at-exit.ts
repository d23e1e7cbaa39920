import { peakRssMb } from "./peak-rss";

/** Loaded with `node -r`: reports the process's peak RSS as it exits, for the start-up figures. */
process.on("exit", () => {
  process.stderr.write(`rss-mb=${peakRssMb().toFixed(1)}\n`);
});
