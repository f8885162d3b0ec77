// An application that closes LIKWID in a C++ static destructor (a profiler
// object at namespace scope), the way some codes wrap the marker API. This
// Close comes after the shim's exit hook and must still reach LIKWID.
#include <cstdio>

extern "C" {
#include <likwid-marker.h>
}

namespace {

volatile double sink;

// Constructed before main, so its destructor is registered before Init:
// the shim's exit hook, registered at Init, runs first.
struct Profiler {
    Profiler() { std::setvbuf(stdout, nullptr, _IOLBF, 0); }
    ~Profiler()
    {
        LIKWID_MARKER_CLOSE;
        std::printf("dtor_app: closed in a static destructor\n");
    }
};

Profiler profiler;

} // namespace

int main()
{
    LIKWID_MARKER_INIT;
    for (int i = 0; i < 3; i++) {
        LIKWID_MARKER_START("work");
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += k * 0.5;
        sink = s;
        LIKWID_MARKER_STOP("work");
    }
    std::printf("dtor_app: main returns\n");
    return 0;
}
