use std::process::ExitCode;

// A scan allocates and frees millions of small strings and maps across rayon's workers;
// mimalloc's thread-local free lists make `list` ~10% and a replay ~15-20% faster than glibc's
// malloc (docs/benchmarks.md). Transparent huge pages are off (`no_thp`): with them, the
// arenas' 2 MiB pages pushed the peak RSS of `list` on the 1 GB bench store from 46 to 80-90 MB.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    sessions::commands::run(sessions::cli::parse())
}
