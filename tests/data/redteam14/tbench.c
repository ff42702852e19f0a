#define _GNU_SOURCE
#include <sys/timerfd.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static volatile double sink;
static double work(long it){double a=0;for(long i=0;i<it;i++){a+=i*1e-9;} sink=a;return a;}
int main(int argc,char**argv){
  int N=atoi(argv[1]); double W=atof(argv[2]); int cpu=atoi(argv[3]);
  cpu_set_t s;CPU_ZERO(&s);CPU_SET(cpu,&s);sched_setaffinity(0,sizeof s,&s);
  int *fd=malloc(N*sizeof(int));
  for(int i=0;i<N;i++) fd[i]=timerfd_create(CLOCK_MONOTONIC,TFD_NONBLOCK|TFD_CLOEXEC);
  // calibrate: iterations for W ms
  long it=1000000; double t0=now(); work(it); double t1=now(); long itW=(long)(it*W/(t1-t0));
  for(int rep=0;rep<6;rep++){
    double a=now(); work(itW); double b=now();
    struct timespec base; clock_gettime(CLOCK_MONOTONIC,&base);
    double c=now();
    for(int i=0;i<N;i++){ struct itimerspec v={{0,0},{0,0}}; long ns=base.tv_nsec+ (long)(20000+ (W*1e6-40000)*i/(double)N); v.it_value.tv_sec=base.tv_sec+ns/1000000000; v.it_value.tv_nsec=ns%1000000000; timerfd_settime(fd[i],TFD_TIMER_ABSTIME,&v,NULL);}
    double d=now(); work(itW); double e=now();
    // disarm cost (re-arm far future then disarm)
    for(int i=0;i<N;i++){ struct itimerspec v={{0,0},{10,0}}; timerfd_settime(fd[i],0,&v,NULL);}
    double f=now();
    for(int i=N-1;i>=0;i--){ struct itimerspec v={{0,0},{0,0}}; timerfd_settime(fd[i],0,&v,NULL);}
    double g=now();
    printf("plain %.3f ms  with %d timers %.3f ms (slowdown %.1f%%)  arm %.3f ms  arm-far %.3f disarm %.3f ms\n",b-a,N,e-d,100*((e-d)/(b-a)-1),d-c,f-e,g-f);
  }
}
