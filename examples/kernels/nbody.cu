// The n-body step's raw CUDA twin (examples/kernels/device_types.rs: nbody_step): the
// same structs (their declarations come from the Rust types, prepended by the caller), the
// same arithmetic. One thread per particle, grid-stride.
extern "C" __global__ void nbody_step_raw(const Particle* __restrict__ ps, unsigned long long n,
                                          const Body* __restrict__ bodies, unsigned long long m,
                                          Particle* __restrict__ out, float dt, float eps2) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    Particle p = ps[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (unsigned long long j = 0; j < m; ++j) {
      Body b = bodies[j];
      float dx = b.pos.x - p.pos.x, dy = b.pos.y - p.pos.y, dz = b.pos.z - p.pos.z;
      float r2 = dx * dx + dy * dy + dz * dz + eps2;
      float inv = 1.0f / sqrtf(r2);
      float s = b.mass * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    Particle q;
    q.vel.x = p.vel.x + ax * dt;
    q.vel.y = p.vel.y + ay * dt;
    q.vel.z = p.vel.z + az * dt;
    q.pos.x = p.pos.x + q.vel.x * dt;
    q.pos.y = p.pos.y + q.vel.y * dt;
    q.pos.z = p.pos.z + q.vel.z * dt;
    q.mass = p.mass;
    out[i] = q;
  }
}
