#define _GNU_SOURCE
#include <sys/timerfd.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static volatile double sink;
static void work(long it){double a=0;for(long i=0;i<it;i++){a+=i*1e-9;} sink=a;}
static void spin_until(double t){while(now()<t);}
int main(){
  cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);sched_setaffinity(0,sizeof s,&s);
  int N=150; int fd[150]; for(int i=0;i<N;i++) fd[i]=timerfd_create(CLOCK_MONOTONIC,TFD_NONBLOCK);
  long it=1000000; double t0=now(); work(it); double t1=now(); long it2=(long)(it*2.5/(t1-t0));
  for(int rep=0;rep<8;rep++){
    int armed = rep%2;
    double base=now();
    if(armed) for(int i=0;i<N;i++){ struct timespec b; clock_gettime(CLOCK_MONOTONIC,&b); long long d=(long long)((base+2.5+9.0*i/N)*1e6); struct itimerspec v={{0,0},{d/1000000000LL,d%1000000000LL}}; timerfd_settime(fd[i],TFD_TIMER_ABSTIME,&v,0);}
    usleep(4000);               // idle until ~4ms (like the judge's fetch)
    double a=now(); work(it2); double b=now();   // "eager" in the window
    usleep(25000);              // rest of round
    double c=now(); work(it2); double d=now();   // "candidate" next frame
    printf("%s window-frame %.3f ms  later-frame %.3f ms\n", armed?"ARMED":"plain", b-a, d-c);
  }
}
