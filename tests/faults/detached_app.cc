// A C++ program whose main returns without likwid_markerClose while a
// detached thread still runs and uses a global (a pattern of real codes:
// a logger or progress thread nobody joins). Without the shim the process
// ends microseconds after the global's destructor; the shim's end-of-process
// work must not widen that window, or the thread finds the global destroyed
// (a null pointer here: SIGSEGV). So that a loaded machine, which may hold
// the exiting thread back for a few milliseconds anywhere, cannot make the
// run without the shim crash, the ticker dereferences the destroyed table
// only once it has stayed destroyed for kGrace: a process that ends as it
// does without the shim never lives that long after its destructors.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

extern "C" {
#include <likwid-marker.h>
}

namespace {

volatile double sink;
constexpr auto kGrace = std::chrono::milliseconds(50);
// Trivially destructible: still valid after the static destructors.
std::atomic<long long> destroyed_at_ns{0};

long long now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Constructed before main (before Init), destroyed after main returns.
struct Table {
    int *volatile data;
    Table() : data(new int[64]()) {}
    ~Table()
    {
        destroyed_at_ns = now_ns();
        delete[] data;
        data = nullptr;
    }
};

Table table;

void ticker()
{
    for (;;) {
        long long gone = destroyed_at_ns;
        if (gone && now_ns() - gone < std::chrono::nanoseconds(kGrace).count()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            continue;
        }
        int *d = table.data;
        for (int i = 0; i < 64; i++)
            d[i]++;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

} // namespace

int main()
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    LIKWID_MARKER_INIT;
    std::thread(ticker).detach();
    for (int i = 0; i < 3; i++) {
        LIKWID_MARKER_START("work");
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += k * 0.5;
        sink = s;
        LIKWID_MARKER_STOP("work");
    }
    std::printf("detached_app: main returns, the ticker still runs\n");
    return 0;
}
