// <assert.h> for kernels on the host device (first on the include path): a failed assert
// fails the launch with CUDA's message, naming block and thread, instead of aborting the
// process. NDEBUG turns it off, as on the GPU.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
[[noreturn]] inline void __cuprum_assert_fail(const char* expr, const char* file, unsigned int line,
                                              const char* func);
#define assert(e) ((e) ? (void)0 : __cuprum_assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
