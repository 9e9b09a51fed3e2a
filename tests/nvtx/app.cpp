// app.cpp — the C++ NVTX API (nvtx3.hpp) under `flinch record --nvtx`
// (tests/e2e/nvtx.sh): scoped ranges nested across domains, registered
// strings, scoped ranges on three threads, and a unique_range started on
// one thread and ended on another.
#include <nvtx3/nvtx3.hpp>

#include <chrono>
#include <thread>
#include <utility>
#include <vector>

struct srv_cpp { static constexpr char const *name{"srv_cpp"}; };

static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

int main()
{
    nvtx3::mark("cpp_start");
    {
        nvtx3::scoped_range outer{"cpp_outer"};
        sleep_ms(20);
        nvtx3::registered_string_in<srv_cpp> inner_name{"cpp_inner"};
        nvtx3::scoped_range_in<srv_cpp> inner{inner_name};
        sleep_ms(10);
    }
    std::vector<std::thread> threads;
    for (int k = 0; k < 3; k++)
        threads.emplace_back([k] {
            nvtx3::scoped_range r{"cpp_work"};
            sleep_ms(10 * (k + 1));
        });
    for (auto &t : threads)
        t.join();
    nvtx3::unique_range u{"cpp_unique"};
    std::thread ender([r = std::move(u)]() mutable {
        sleep_ms(25);
        nvtx3::unique_range done = std::move(r);   // ends here, on this thread
    });
    ender.join();
    nvtx3::mark_in<srv_cpp>("cpp_end");
    return 0;
}
